/**
 * What the loaders know of a splat file format, in two parts: its
 * description (its names, the files it needs beside it, its writer), in a
 * module of its own beside this one and listed once in index.ts, and its
 * reader (how it is recognised and decoded), in readers.ts by the
 * format's id. The file picker's accept list and the help text
 * (scene-files.ts), "save scene as" and the convert command (the formats
 * with a writer) read the descriptions; detection (detect.ts) and the
 * loaders (parse-splat-file.ts, splat-stream.ts, scene-source.ts) read
 * them with their readers. A new format is one module, a line in the
 * list and its reader. DOM-free.
 *
 * The two parts keep the decoders out of the page: its main thread
 * imports the descriptions only (a writer is loaded when a scene is
 * saved), and only the load worker and Node import the readers, whose
 * decoders are each loaded when a file of the format is read (a dynamic
 * import, a chunk of its own in the browser). A bundler keeps a chunk for
 * every dynamic import of a module it bundles, used or not, so the two
 * parts are in different modules.
 */
import type { SplatCloud } from '../../scene/splat-cloud';
import type { LoadLimits } from '../load-limits';
import type { RecordStream } from '../record-stream';

/** What a format's sniff says of some bytes: its format, not its, or too few bytes to tell yet. */
export type Sniff = 'yes' | 'no' | 'more';

export interface SniffContext {
  /**
   * The bytes are only the start of the file (a stream still arriving):
   * 'more' when they cannot tell yet. Whole bytes get 'yes' or 'no'.
   */
  partial: boolean;
}

export interface ReadOptions {
  /** What the scene may cost (default DEFAULT_LOAD_LIMITS): checked before anything of that size is allocated. */
  limits?: LoadLimits;
  /** Fraction of the decode done, in [0, 1]. */
  onProgress?: (fraction: number) => void;
  /** Told of anything odd that does not stop the load (bytes after a PLY's declared data). */
  onWarning?: (message: string) => void;
}

export interface StreamOptions extends ReadOptions {
  /** Bytes of the whole file, when known: a declared count is checked against it first. */
  totalBytes?: number;
}

/**
 * Reads a file that the main file names, by that name (relative to the
 * main file). `maxBytes` is the most it may hold: a reader that can tell a
 * file is larger refuses it, or stops reading past the bound.
 */
export type CompanionReader = (name: string, maxBytes: number) => Promise<Uint8Array>;

/** The files a format's main file needs beside it (a SOG meta.json: the images it names). */
export interface Companions {
  /** Extensions of those files, for the file picker ('.webp'). */
  readonly extensions: readonly string[];
  /** What those files are, in help text and messages ("images": "a SOG meta.json with its images"). */
  readonly what: string;
  /** Its main file is read alone too, where it holds everything (a .gltf with its buffers embedded). */
  readonly alone?: boolean;
}

/** How a format with companions is read: its main file, then the files it names. */
export interface CompanionsReader {
  /** The most bytes of the main file read: it is read whole, before its companions (absent: the load's maxBytes). */
  readonly maxMainBytes?: number;
  /** The scene, from the main file's bytes and its companions read through `companion`. */
  readonly read: (main: Uint8Array, companion: CompanionReader, options: ReadOptions) => Promise<SplatCloud>;
}

/** How a format saves a scene: the formats "save scene as" and the convert command offer are those with one. */
export interface FormatWriter {
  /** The file's bytes for a scene (its encoder loaded when first needed, as the decoders are). */
  readonly write: (cloud: SplatCloud) => Promise<Uint8Array>;
  /** What a saved file keeps of the scene, for the panel and the help text ("every value, exactly"). */
  readonly keeps: string;
}

export interface SplatFormat<Id extends string = string> {
  readonly id: Id;
  /** Its name in help text and messages ("SPZ", "SOG meta.json"). */
  readonly label: string;
  /** How its files end, lower case with the dot ('.ply'): the picker accepts them. */
  readonly extensions: readonly string[];
  /** The whole name its file always has ('meta.json'): by name, only a file so named is taken for it. */
  readonly fileName?: string;
  /** The files it needs beside it: such a format is read from a scene source (scene-source.ts), not from bytes alone. */
  readonly companions?: Companions;
  /** Writes a scene as a file of this format (its first extension names the file). */
  readonly writer?: FormatWriter;
}

/** How a format's files are recognised and read. */
export interface FormatReader {
  /**
   * Recognises the format by content. Sniffs are asked in list order and
   * the first 'yes' wins. May throw SplatFormatError for bytes that are
   * certainly of the format and certainly unreadable (a PLY header past
   * any splat file's size), so the message names what is wrong.
   */
  readonly sniff?: (bytes: Uint8Array, context: SniffContext) => Sniff;
  /** What its files start with, for the message about a file nothing recognises ("'ply'"); with sniff. */
  readonly signature?: string;
  /**
   * Taken by its name (extensions or fileName) when no sniff recognises the
   * bytes: formats with no header (.splat) or one too weak to trust alone
   * (.ksplat), and those opened by name before their bytes are read.
   */
  readonly byName?: boolean;
  /** Reads the whole file held in memory (every format but those read only with companions). */
  readonly read?: (bytes: Uint8Array, options: ReadOptions) => Promise<SplatCloud>;
  /**
   * Decodes the file while its bytes arrive: given the first bytes (those
   * the sniff saw), a decoder that the rest is pushed into. Formats without
   * one are gathered whole, then read.
   */
  readonly stream?: (start: Uint8Array, options: StreamOptions) => Promise<RecordStream>;
  /** Reads it with the files its description's companions name (every format that has them). */
  readonly withCompanions?: CompanionsReader;
}

/** A format with its reader: what detection finds and the loaders read with. */
export type ReadableFormat = SplatFormat & FormatReader;
