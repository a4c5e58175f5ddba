import { expect } from 'vitest';
import { SplatFormatError } from '../../src/io/format-error';

/** Expects `run` to throw a SplatFormatError whose message matches every pattern; returns the message. */
export function expectFormatError(run: () => unknown, ...patterns: RegExp[]): string {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected a SplatFormatError').toBeInstanceOf(SplatFormatError);
  const message = (caught as Error).message;
  for (const pattern of patterns) expect(message).toMatch(pattern);
  return message;
}

/** Expects `promise` to reject with a SplatFormatError; returns the error. */
export async function formatError(promise: Promise<unknown>): Promise<Error> {
  const caught = await promise.then(() => undefined, (error: unknown) => error);
  expect(caught, 'expected a SplatFormatError').toBeInstanceOf(SplatFormatError);
  return caught as Error;
}

/** Expects `promise` to reject with a SplatFormatError whose message matches every pattern; returns the message. */
export async function expectFormatRejection(promise: Promise<unknown>, ...patterns: RegExp[]): Promise<string> {
  const message = (await formatError(promise)).message;
  for (const pattern of patterns) expect(message).toMatch(pattern);
  return message;
}
