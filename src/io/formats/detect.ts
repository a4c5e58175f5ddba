/**
 * Which format a splat file is, from the formats' list with their readers
 * (readers.ts): by content first, each format's sniff asked in the list's
 * order, then by name (file-names.ts), among the formats that may be known
 * by it. DOM-free.
 */
import { SplatFormatError } from '../format-error';
import { isNamedFor, opensWithCompanions } from './file-names';
import { READABLE_FORMATS } from './readers';

/** A format of the list, with its reader. */
type Listed = (typeof READABLE_FORMATS)[number];

/**
 * Bytes of a file still arriving that every sniff gets before a format is
 * decided by name or refused: more than any format's magic or version
 * bytes. A PLY's sniff waits for its whole header instead.
 */
export const SNIFF_BYTES = 4096;

/**
 * The format of a whole file held in memory. Throws SplatFormatError, saying
 * what was seen, when neither its content nor its name tells.
 */
export function detectFormat(bytes: Uint8Array, name?: string): Listed {
  return find(bytes, name, false) as Listed;
}

/**
 * The format of a file from its first bytes (a stream still arriving), or
 * 'more' while they cannot tell yet. Throws as detectFormat does, as soon
 * as the bytes cannot be any format's.
 */
export function sniffFormat(start: Uint8Array, name?: string): Listed | 'more' {
  return find(start, name, true);
}

/** The format, with its reader, that opens a file by its name before reading it, because it needs files beside it (a SOG meta.json). */
export function formatWithCompanionsFor(name: string): Listed | undefined {
  return READABLE_FORMATS.find((format) => opensWithCompanions(format, name));
}

function find(bytes: Uint8Array, name: string | undefined, partial: boolean): Listed | 'more' {
  let more = false;
  for (const format of READABLE_FORMATS) {
    const said = format.sniff?.(bytes, { partial });
    if (said === 'yes') return format;
    if (said === 'more' && partial) more = true;
  }
  if (more || (partial && bytes.length < SNIFF_BYTES)) return 'more';
  const named = name === undefined ? undefined : READABLE_FORMATS.find((format) => format.byName && isNamedFor(format, name));
  if (named) return named;
  throw unrecognised(bytes, name);
}

/** "a, b or c". */
function either(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** The first bytes, printable ASCII kept and the rest shown as \xNN, for messages. */
function describeStart(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'an empty file';
  let text = '';
  for (const byte of bytes.subarray(0, 8)) {
    text += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `a file starting with "${text}"`;
}

/** What a file that no format recognises is told: what it starts with, what its name is, and what either would have to be. */
function unrecognised(bytes: Uint8Array, name: string | undefined): SplatFormatError {
  const signatures = [...new Set(READABLE_FORMATS.flatMap((f) => (f.signature === undefined ? [] : [f.signature])))];
  const byName = READABLE_FORMATS.filter((f) => f.byName);
  const endings = [...new Set(byName.flatMap((f) => (f.fileName === undefined ? f.extensions : [])))];
  const fileNames = byName.flatMap((f) => (f.fileName === undefined ? [] : [f.fileName]));
  const named = name === undefined
    ? 'it has no file name'
    : `its name "${name}" does not end in ${either(endings)}${fileNames.length > 0 ? ` and is not ${either(fileNames)}` : ''}`;
  return new SplatFormatError(`Unrecognised splat file: ${describeStart(bytes)} does not start with ${either(signatures)}, and ${named}`);
}
