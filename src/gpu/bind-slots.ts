/**
 * The slots of a bind group, described once in TypeScript beside the
 * struct layouts its buffers hold: the code that builds the group takes
 * each entry's binding number from the table (no numbers written by hand
 * on the TypeScript side), and checkWgslBindings compares every table with
 * the `@group(g) @binding(n) var … name` declarations of the WGSL files it
 * names, so a slot renumbered or added on one side only fails a test
 * (tests/unit/wgsl-layouts.test.ts).
 */
import { withoutWgslComments } from './wgsl-comments';

export interface BindSlots<N extends string> {
  /** Whose group this is, for messages and labels: 'OrderErrorPass', 'SplatProjector.project'. */
  readonly name: string;
  readonly group: number;
  /** The WGSL files (as named in shaders/) whose declarations this group binds. */
  readonly shaders: readonly string[];
  /** Variable name → binding number. */
  readonly slots: Readonly<Record<N, number>>;
  /** The group's entries, one per slot given, in slot order. */
  entries(resources: Partial<Record<N, GPUBindingResource>>): GPUBindGroupEntry[];
}

/**
 * Describes a bind group: `slots` maps each WGSL variable the group binds
 * to its binding number. Numbers must be unique within the group.
 */
export function defineBindSlots<N extends string>(
  name: string,
  shaders: readonly string[],
  slots: Record<N, number>,
  group = 0,
): BindSlots<N> {
  const seen = new Map<number, string>();
  for (const [variable, binding] of Object.entries(slots) as [string, number][]) {
    if (!Number.isInteger(binding) || binding < 0) throw new Error(`${name}: slot ${variable} has binding ${binding}, not a whole number`);
    const other = seen.get(binding);
    if (other !== undefined) throw new Error(`${name}: ${other} and ${variable} share binding ${binding}`);
    seen.set(binding, variable);
  }
  return {
    name,
    group,
    shaders,
    slots,
    entries(resources) {
      const entries: GPUBindGroupEntry[] = [];
      for (const [variable, resource] of Object.entries(resources) as [N, GPUBindingResource | undefined][]) {
        if (resource === undefined) continue;
        const binding = slots[variable];
        if (binding === undefined) throw new Error(`${name} has no slot ${variable}`);
        entries.push({ binding, resource });
      }
      return entries.sort((a, b) => a.binding - b.binding);
    },
  };
}

export interface WgslBinding {
  group: number;
  binding: number;
}

/** Every resource variable a WGSL source declares with @group and @binding: name → its slot (comments ignored). */
export function parseWgslBindings(source: string): Map<string, WgslBinding> {
  const code = withoutWgslComments(source);
  const found = new Map<string, WgslBinding>();
  const declaration = /((?:@\w+\s*\([^)]*\)\s*)+)var\s*(?:<[^>]*>)?\s*(\w+)\s*:/g;
  for (const match of code.matchAll(declaration)) {
    const attributes = match[1]!;
    const group = /@group\s*\(\s*(\d+)\s*\)/.exec(attributes);
    const binding = /@binding\s*\(\s*(\d+)\s*\)/.exec(attributes);
    if (!group && !binding) continue;
    const name = match[2]!;
    if (!group || !binding) throw new Error(`var ${name} has ${group ? '@group' : '@binding'} without ${group ? '@binding' : '@group'}`);
    if (found.has(name)) throw new Error(`var ${name} is declared twice in one source`);
    found.set(name, { group: Number(group[1]), binding: Number(binding[1]) });
  }
  return found;
}

/**
 * Compares `tables` with the bindings declared in `sources` (file name →
 * WGSL). Returns what disagrees, in words: a table naming a file that is
 * not there, a slot whose variable its files do not declare or declare at
 * another group or binding, and a variable a file declares that no table
 * naming that file binds.
 */
export function checkWgslBindings(sources: Record<string, string>, tables: readonly BindSlots<string>[]): string[] {
  const problems: string[] = [];
  const declared = new Map<string, Map<string, WgslBinding>>();
  for (const [file, source] of Object.entries(sources)) declared.set(file, parseWgslBindings(source));
  const bound = new Map<string, Set<string>>();
  for (const table of tables) {
    const missing = table.shaders.filter((file) => !declared.has(file));
    if (missing.length > 0) {
      problems.push(`${table.name} names ${missing.join(', ')}, which ${missing.length === 1 ? 'is not a shader' : 'are not shaders'}`);
      continue;
    }
    const inFiles = new Map<string, { file: string; at: WgslBinding }>();
    for (const file of table.shaders) {
      for (const [name, at] of declared.get(file)!) if (!inFiles.has(name)) inFiles.set(name, { file, at });
    }
    for (const [variable, binding] of Object.entries(table.slots) as [string, number][]) {
      const found = inFiles.get(variable);
      if (!found) {
        problems.push(`${table.name} binds ${variable} at ${binding}, but ${table.shaders.join(', ')} declare${table.shaders.length === 1 ? 's' : ''} no var ${variable}`);
        continue;
      }
      if (found.at.group !== table.group || found.at.binding !== binding) {
        problems.push(
          `${table.name} binds ${variable} at @group(${table.group}) @binding(${binding}), ` +
          `but ${found.file} declares it at @group(${found.at.group}) @binding(${found.at.binding})`,
        );
      }
      let names = bound.get(found.file);
      if (!names) bound.set(found.file, (names = new Set()));
      names.add(variable);
    }
  }
  for (const [file, vars] of declared) {
    for (const name of vars.keys()) {
      if (!bound.get(file)?.has(name)) problems.push(`${file} declares var ${name}, which no bind-slot table binds`);
    }
  }
  return problems;
}
