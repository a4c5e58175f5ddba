/**
 * Byte layouts of WGSL structs, described once in TypeScript: field offsets
 * follow the WGSL alignment rules, writers take offsets by field name, and
 * checkWgslStructs compares the description with the shaders' declarations.
 */
import { withoutWgslComments } from './wgsl-comments';

export interface FieldSpec {
  name: string;
  type: string;
}

export interface FieldLayout extends FieldSpec {
  offset: number;
  size: number;
  align: number;
}

export interface StructLayout {
  readonly name: string;
  readonly fields: readonly FieldLayout[];
  readonly size: number;
  readonly align: number;
  offset(field: string): number;
  word(field: string): number;
}

function typeLayout(type: string): { size: number; align: number } {
  const t = type.replace(/\s+/g, '');
  if (['f32', 'u32', 'i32', 'atomic<u32>', 'atomic<i32>'].includes(t)) return { size: 4, align: 4 };
  const vec = /^vec([234])<(f32|u32|i32)>$/.exec(t);
  if (vec) {
    const n = Number(vec[1]);
    return { size: 4 * n, align: n === 2 ? 8 : 16 };
  }
  const mat = /^mat([234])x([234])<f32>$/.exec(t);
  if (mat) {
    const column = typeLayout(`vec${mat[2]}<f32>`);
    const stride = Math.ceil(column.size / column.align) * column.align;
    return { size: Number(mat[1]) * stride, align: column.align };
  }
  const array = /^array<(.+),(\d+)>$/.exec(t);
  if (array) {
    const element = typeLayout(array[1]!);
    return { size: Number(array[2]) * Math.ceil(element.size / element.align) * element.align, align: element.align };
  }
  const runtime = /^array<(.+)>$/.exec(t);
  if (runtime) return { size: 0, align: typeLayout(runtime[1]!).align };
  throw new Error(`unknown WGSL type ${type}`);
}

export function defineStruct(name: string, specs: readonly FieldSpec[] | readonly (readonly [string, string])[]): StructLayout {
  const list: FieldSpec[] = specs.map((s) => (Array.isArray(s) ? { name: s[0], type: s[1] } : (s as FieldSpec)));
  const fields: FieldLayout[] = [];
  let offset = 0;
  let align = 4;
  list.forEach((f, i) => {
    const l = typeLayout(f.type);
    if (/^array<[^,]+>$/.test(f.type.replace(/\s+/g, '')) && i !== list.length - 1) throw new Error(`${name}.${f.name}: a runtime-sized array must be the last field`);
    offset = Math.ceil(offset / l.align) * l.align;
    fields.push({ ...f, offset, size: l.size, align: l.align });
    offset += l.size;
    align = Math.max(align, l.align);
  });
  const last = fields[fields.length - 1];
  const runtimeTail = last !== undefined && last.size === 0;
  const size = runtimeTail ? last.offset : Math.ceil(offset / align) * align;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const offsetOf = (field: string) => {
    const f = byName.get(field);
    if (!f) throw new Error(`${name} has no field ${field}`);
    return f.offset;
  };
  return {
    name,
    fields,
    size,
    align,
    offset: offsetOf,
    word: (field) => offsetOf(field) / 4,
  };
}

/** Every `struct Name { ... }` in WGSL source: its fields' names and types, in order (comments ignored). */
export function parseWgslStructs(source: string): Map<string, FieldSpec[]> {
  const code = withoutWgslComments(source);
  const structs = new Map<string, FieldSpec[]>();
  for (const match of code.matchAll(/\bstruct\s+(\w+)\s*\{([^}]*)\}/g)) {
    const name = match[1]!;
    if (structs.has(name)) throw new Error(`struct ${name} is declared twice in one source`);
    const fields: FieldSpec[] = [];
    // Split on commas outside angle brackets (array<u32, 4> holds one).
    let depth = 0;
    let current = '';
    for (const ch of match[2]!) {
      if (ch === '<') depth++;
      if (ch === '>') depth--;
      if (ch === ',' && depth === 0) {
        if (current.trim()) fields.push(parseField(name, current));
        current = '';
      } else current += ch;
    }
    if (current.trim()) fields.push(parseField(name, current));
    structs.set(name, fields);
  }
  return structs;
}

function parseField(struct: string, text: string): FieldSpec {
  const field = /^\s*((?:@\w+(?:\([^)]*\))?\s*)*)(\w+)\s*:\s*(.+?)\s*$/s.exec(text);
  if (!field) throw new Error(`struct ${struct}: cannot read the field "${text.trim()}"`);
  // @align and @size move fields; the stage attributes (@builtin, @location) do not.
  if (/@(align|size)\b/.test(field[1]!)) throw new Error(`struct ${struct}.${field[2]}: attributes (${field[1]!.trim()}) change the layout and are not described`);
  return { name: field[2]!, type: field[3]!.replace(/\s+/g, ' ').replace(/\s*,\s*/g, ', ').replace(/<\s*/g, '<').replace(/\s*>/g, '>') };
}

const normalType = (type: string) => type.replace(/\s+/g, '');

/**
 * Compares the structs declared in `sources` (file name → WGSL) with
 * `layouts`. Returns what disagrees, in words: a struct declared in WGSL
 * with no layout (unless named in `shaderOnly`, structs that never reach a
 * buffer TypeScript writes or reads), a layout no source declares, a struct
 * declared in more than one source, a field that differs.
 */
export function checkWgslStructs(
  sources: Record<string, string>,
  layouts: readonly StructLayout[],
  shaderOnly: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  const declared = new Map<string, { file: string; fields: FieldSpec[] }>();
  for (const [file, source] of Object.entries(sources)) {
    for (const [name, fields] of parseWgslStructs(source)) {
      const earlier = declared.get(name);
      if (earlier) problems.push(`struct ${name} is declared in both ${earlier.file} and ${file}`);
      else declared.set(name, { file, fields });
    }
  }
  const described = new Map(layouts.map((l) => [l.name, l]));
  for (const [name, { file, fields }] of declared) {
    const layout = described.get(name);
    if (!layout) {
      if (!shaderOnly.includes(name)) problems.push(`struct ${name} (${file}) has no layout in TypeScript`);
      continue;
    }
    const a = fields.map((f) => `${f.name}: ${normalType(f.type)}`);
    const b = layout.fields.map((f) => `${f.name}: ${normalType(f.type)}`);
    if (a.join(', ') !== b.join(', ')) problems.push(`struct ${name} (${file}) is { ${a.join(', ')} } but its layout says { ${b.join(', ')} }`);
  }
  for (const name of described.keys()) if (!declared.has(name)) problems.push(`layout ${name} is declared in no shader`);
  return problems;
}
