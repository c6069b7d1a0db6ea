// Wraps one line of display text at word boundaries, for CLI output that must fit the
// terminal without cutting a word; a word longer than a whole line is split where it must be.

/**
 * Splits `text` (one line, already safe to display) into lines of at most `width` code points,
 * breaking at spaces. A word longer than `width` (a path, a digest) is cut into pieces of
 * `width`. Runs of spaces at a break are dropped; nothing else is.
 * @example wrapWords('refused this Write: package.json', 12) // ['refused this', 'Write:', 'package.json']
 */
export function wrapWords(text: string, width: number): string[] {
  const max = Math.max(1, Math.floor(width));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter((w) => w !== '')) {
    let rest = Array.from(word);
    if (line !== '' && Array.from(line).length + 1 + rest.length <= max) {
      line += ` ${word}`;
      continue;
    }
    if (line !== '') lines.push(line);
    while (rest.length > max) {
      lines.push(rest.slice(0, max).join(''));
      rest = rest.slice(max);
    }
    line = rest.join('');
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * The first `maxLines` lines of {@link wrapWords}; when text was left out, the last line ends
 * with ` …` (words are dropped from it to make room, so no word is ever shown cut).
 * @example clipWords('one two three four', 9, 1) // { lines: ['one two …'], clipped: true }
 */
export function clipWords(text: string, width: number, maxLines: number): { lines: string[]; clipped: boolean } {
  const all = wrapWords(text, width);
  if (all.length <= maxLines) return { lines: all, clipped: false };
  const kept = all.slice(0, Math.max(1, maxLines));
  const words = kept.pop()!.split(' ');
  while (words.length > 1 && Array.from(words.join(' ')).length + 2 > width) words.pop();
  // Only a word longer than a whole line (already split by wrapWords) is cut here.
  const last = Array.from(words.join(' '))
    .slice(0, Math.max(0, Math.floor(width) - 2))
    .join('');
  kept.push(last === '' ? '…' : `${last} …`);
  return { lines: kept, clipped: true };
}
