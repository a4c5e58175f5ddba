/** Thrown for any splat file that cannot be read; the message says what is wrong. */
export class SplatFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SplatFormatError';
  }
}
