/**
 * The command line of the project's commands (the benchmarks, make-world):
 * `--help` (or -h) prints what the command does and its options; an option
 * it does not know, or a value it cannot take, ends it with one line that
 * says so and where the options are, not a stack trace; so does any error
 * it stops on (SPLATSORT_DEBUG=1 keeps the stack).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Reads the command line with `options` (plus --help), after installing the
 * one-line report of whatever the command stops on.
 */
export function commandLine<const O extends Options>(name: string, help: string, options: O, config: { allowPositionals?: boolean } = {}) {
  stopsInOneLine(name);
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h', default: false } }, allowPositionals: config.allowPositionals ?? false }) as typeof parsed;
  } catch (error) {
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)} (--help lists the options)`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(help.trim());
    process.exit(0);
  }
  return parsed as unknown as { values: { [K in keyof O]: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { default: string } ? string : string | undefined }; positionals: string[] };
}

/** What the command stops on, told in one line with the command's name (exit code 1). */
export function stopsInOneLine(name: string): void {
  if (process.env.SPLATSORT_DEBUG) return;
  process.on('uncaughtException', (error) => {
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
