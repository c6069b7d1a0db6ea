// Terraform, OpenTofu and the CDK: reads of configuration and state. State pulls, JSON or raw
// outputs (sensitive values in the clear), plans, tests and synthesis (which run providers or code) ask.
import type { ToolKb } from './types.js';

export const TERRAFORM: ToolKb = {
  family: 'terraform',
  programs: ['terraform', 'tofu'],
  longSingleDash: true,
  globals: { values: ['-chdir'] },
  entries: [
    { path: 'state pull', class: 'ask', why: 'prints the whole state, secrets included' },
    {
      path: 'output',
      class: 'approve',
      why: 'prints outputs, sensitive ones masked',
      flags: ['-no-color'],
      values: ['-state'],
      unsafe: { '-json': 'prints sensitive outputs in the clear', '-raw': 'prints an output in the clear, sensitive or not' },
    },
    { path: 'show', class: 'approve', why: 'shows state or a plan, sensitive values masked', flags: ['-no-color'], unsafe: { '-json': 'prints sensitive values in the clear' }, maxPositionals: 1 },
    { path: 'validate', class: 'approve', why: 'checks the configuration', flags: ['-no-color', '-json', '-no-tests'], maxPositionals: 0 },
    { path: 'fmt', class: 'approve', why: 'checks formatting without writing', flags: ['-check', '-diff', '-recursive', '-no-color'], requires: ['-check'] },
    { path: 'version|providers|graph', class: 'approve', why: 'describes the configuration', flags: ['-json', '-no-color'], values: ['-type', '-plan'] },
    { path: 'state list|show', class: 'approve', why: 'lists resources in the state, sensitive values masked', flags: ['-no-color'], values: ['-state', '-id'] },
    { path: 'workspace list|show', class: 'approve', why: 'names workspaces', flags: [] },
  ],
};

export const CDK: ToolKb = {
  family: 'cdk',
  programs: ['cdk', 'cdktf'],
  // synth, diff, deploy and the rest run the app's code.
  entries: [
    { path: 'ls|list|synth|diff', class: 'ask', why: "runs the app's code" },
    { path: 'version|--version', class: 'approve', why: 'prints the version', flags: [] },
  ],
};
