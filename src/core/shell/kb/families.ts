// Every tool family the knowledge base knows, in one list for the interpreter to index.
import { AWS } from './aws.js';
import { AZ } from './az.js';
import { DOCKER } from './docker.js';
import { GCLOUD } from './gcloud.js';
import { GH } from './gh.js';
import { GIT } from './git.js';
import { HELM, KUBECTL } from './kubectl.js';
import { DMESG, CTL_STATUS, HOSTNAME, IFCONFIG, IP, JOURNALCTL, MOUNT, NVIDIA_SMI, PS, SS, SYSCTL, SYSTEMCTL, TOP } from './os.js';
import { CARGO, GO, NPM, PIP, PNPM_YARN, UV } from './packages.js';
import { CDK, TERRAFORM } from './terraform.js';
import { AWK, BAT, FD, FZF, MAN, OPENSSL, PAGER, SED, TAR, TREE, UNZIP, XXD, YQ, ZIPINFO } from './text.js';
import { BREW, CHECKERS, FORMAT_CHECKS, GOFMT, RUFF, SYSTEM_PACKAGES, VERSION_ONLY } from './tools.js';
import type { ToolKb } from './types.js';

export const KNOWLEDGE: readonly ToolKb[] = [
  ...[AWS, GCLOUD, AZ, KUBECTL, HELM, DOCKER, GH, GIT, NPM, PNPM_YARN, PIP, UV, CARGO, GO, TERRAFORM, CDK],
  ...[SED, AWK, TAR, UNZIP, ZIPINFO, OPENSSL, PAGER, TREE, FD, BAT, XXD, YQ, FZF, MAN],
  ...[PS, SS, IP, IFCONFIG, HOSTNAME, DMESG, JOURNALCTL, SYSTEMCTL, CTL_STATUS, SYSCTL, TOP, MOUNT, NVIDIA_SMI],
  ...[RUFF, CHECKERS, FORMAT_CHECKS, GOFMT, BREW, SYSTEM_PACKAGES, VERSION_ONLY],
];
