// Base64 to bytes and back in the browser, without the Latin-1 pitfalls of atob/btoa on text.

/**
 * Decodes base64 into bytes (xterm decodes UTF-8 across chunk boundaries itself).
 * @example decodeBase64('aGk=') // Uint8Array [104, 105]
 */
export function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Encodes raw bytes given as a binary string (xterm's `onBinary`: one char per byte) as base64.
 * @example encodeBinaryString('\x80') // 'gA=='
 */
export function encodeBinaryString(bin: string): string {
  return btoa(bin);
}
