// A text longer than one message, cut into messages at sensible places as the terminal
// client and the bots cut it (IMProtocol's MessageSplitter): a paragraph break first, then
// a line break, the end of a sentence, a space, and only in a run with none of those
// between two characters. The break itself goes; nothing else is dropped. Characters are counted as
// people see them (grapheme clusters), as the server counts them.

export const MAX_CHARACTERS = 4096;
export const MAX_BYTES = MAX_CHARACTERS * 8;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const encoder = new TextEncoder();

/** The characters of `text`, as people see them. */
export function characters(text) {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** The parts of `text`, each within both limits; `[text]` when it fits. */
export function splitMessage(text, maxCharacters = MAX_CHARACTERS, maxBytes = MAX_BYTES) {
  const chars = characters(text);
  const parts = [];
  let start = 0;
  while (start < chars.length) {
    // The longest run from `start` that fits both limits.
    let end = start;
    let bytes = 0;
    while (end < chars.length && end - start < maxCharacters) {
      const size = encoder.encode(chars[end]).length;
      if (bytes + size > maxBytes) break;
      bytes += size;
      end += 1;
    }
    if (end === chars.length) {
      parts.push(chars.slice(start).join(''));
      break;
    }
    if (end === start) {
      // One character alone is over the byte limit (a letter with thousands of combining
      // marks): no message takes it whole, so it is cut between its code points, as many
      // as fit (at least one, so the cutting ends).
      const points = Array.from(chars[start]);
      let size = 0;
      let taken = 0;
      while (taken < points.length) {
        const next = size + encoder.encode(points[taken]).length;
        if (next > maxBytes && size > 0) break;
        size = next;
        taken += 1;
      }
      parts.push(points.slice(0, taken).join(''));
      if (taken === points.length) start += 1;
      else chars[start] = points.slice(taken).join('');
      continue;
    }
    const [cut, resume] = breakPoint(chars, start, end);
    if (cut > start) parts.push(chars.slice(start, cut).join(''));
    start = resume;
  }
  return parts;
}

// Where to end the part in chars[start..<end] and where the next begins: the last break
// in the window's second half (a part is never tiny), else the window's end.
function breakPoint(chars, start, end) {
  const earliest = start + Math.max(1, Math.floor((end - start) / 2));
  for (let i = end - 2; i >= earliest; i--) {
    if (chars[i] === '\n' && chars[i + 1] === '\n') return [i, i + 2];
  }
  for (let i = end - 1; i >= earliest; i--) if (chars[i] === '\n' || chars[i] === '\r\n') return [i, i + 1];
  for (let i = end - 2; i >= earliest; i--) {
    if ('.!?'.includes(chars[i]) && chars[i + 1] === ' ') return [i + 1, i + 2];
  }
  for (let i = end - 1; i >= earliest; i--) if (chars[i] === '。') return [i + 1, i + 1];
  for (let i = end - 1; i >= earliest; i--) if (chars[i] === ' ') return [i, i + 1];
  return [end, end];
}
