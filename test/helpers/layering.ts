import fs from 'node:fs';
import path from 'node:path';

/** One import or re-export statement of a source file. */
export interface ImportStatement {
  specifier: string;
  /** `import type …`, `export type …`, or every named specifier marked `type`: erased at compile time. */
  typeOnly: boolean;
}

/** A file of the tree, by its path relative to the repository root ("src/http/auth.ts"). */
export type SourceTree = Map<string, string>;

const STATEMENT = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?([^'";=()]*?)\s*from\s*['"]([^'"]+)['"]/g;
const BARE_IMPORT = /(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

export function importsOf(source: string): ImportStatement[] {
  const found: ImportStatement[] = [];
  for (const [, , typeKeyword, clause, specifier] of source.matchAll(STATEMENT)) {
    const named = clause.trim().startsWith('{') ? /\{([^}]*)\}/.exec(clause)?.[1] : undefined;
    const specifiers = (named ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    const allNamedAreTypes = specifiers.length > 0 && specifiers.every((part) => part.startsWith('type '));
    found.push({ specifier, typeOnly: Boolean(typeKeyword) || allNamedAreTypes });
  }
  for (const [, specifier] of source.matchAll(BARE_IMPORT)) found.push({ specifier, typeOnly: false });
  for (const [, specifier] of source.matchAll(DYNAMIC_IMPORT)) found.push({ specifier, typeOnly: false });
  return found;
}

/** The repository path a relative specifier points at (".js" written for ".ts", as NodeNext wants). */
function resolve(importer: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(importer), specifier));
  return target.replace(/\.js$/, '.ts');
}

const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;
const isQueries = (file: string) => /^src\/modules\/[^/]+\/([a-z-]+-)?queries(\.ts|\/)/.test(file);
/** drizzle, the table definitions or the connection; the invalidation bus (src/db/invalidation.ts) is a service. */
const isDatabaseAccess = (target: string) =>
  target.startsWith('drizzle-orm') || target === 'src/db/schema.ts' || target === 'src/db/index.ts';

/**
 * The layering rules of src/modules/README.md, as messages naming the file and what it must not do:
 * 1. a module's queries are imported only by its own module;
 * 2. a routes.ts neither imports queries, drizzle, the schema or the connection nor touches `database.db`: handlers delegate to services;
 * 3. src/http imports modules for their types only, so the HTTP layer and the modules never form a runtime circle;
 * 4. the gateway (data plane) imports no drizzle or src/db: it reads and writes through the services it is given;
 * 5. modules take their errors from src/lib/errors.ts, never src/http/errors.ts, which imports no module (types included).
 */
export function layeringViolations(tree: SourceTree): string[] {
  const violations: string[] = [];
  for (const [file, source] of tree) {
    const isRoutes = /^src\/modules\/[^/]+\/routes\.ts$/.test(file);
    for (const { specifier, typeOnly } of importsOf(source)) {
      const target = resolve(file, specifier);
      if (isQueries(target) && moduleOf(target) !== moduleOf(file))
        violations.push(`${file} imports ${target}: reach another module through its service`);
      if (isRoutes && (isQueries(target) || isDatabaseAccess(target)))
        violations.push(`${file} imports ${target}: handlers delegate to the module's service`);
      if (file.startsWith('src/http/') && target.startsWith('src/modules/') && !typeOnly)
        violations.push(`${file} imports ${target} at run time: src/http may import modules' types only`);
      if (file.startsWith('src/modules/') && target === 'src/http/errors.ts')
        violations.push(`${file} imports ${target}: a module's errors come from src/lib/errors.ts`);
      if (file === 'src/http/errors.ts' && target.startsWith('src/modules/'))
        violations.push(`${file} imports ${target}: the HTTP edge answers any AppError without knowing modules`);
      if (file.startsWith('src/gateway/') && isDatabaseAccess(target))
        violations.push(`${file} imports ${target}: the gateway reads through the services it is given`);
    }
    if (isRoutes && /\bdatabase\.db\b/.test(source))
      violations.push(`${file} uses database.db: handlers delegate to the module's service`);
  }
  return violations;
}

/** Every .ts file under `root`/src, keyed by its path relative to `root`. */
export function readSourceTree(root: string): SourceTree {
  const tree: SourceTree = new Map();
  const visit = (directory: string) => {
    for (const entry of fs.readdirSync(path.join(root, directory), { withFileTypes: true })) {
      const relative = path.posix.join(directory, entry.name);
      if (entry.isDirectory()) visit(relative);
      else if (entry.name.endsWith('.ts')) tree.set(relative, fs.readFileSync(path.join(root, relative), 'utf8'));
    }
  };
  visit('src');
  return tree;
}

/**
 * Groups of files that import each other in a loop, type-only and dynamic imports included (Tarjan's strongly
 * connected components), each sorted, as "a.ts → b.ts → …".
 */
export function importCycles(tree: SourceTree): string[] {
  const edges = new Map<string, string[]>();
  for (const [file, source] of tree)
    edges.set(
      file,
      importsOf(source)
        .map(({ specifier }) => resolve(file, specifier))
        .filter((target) => tree.has(target)),
    );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file)!) {
      if (!index.has(target)) visit(target);
      if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, low.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1 || edges.get(file)!.includes(file)) cycles.push(group.sort().join(' → '));
  };
  for (const file of tree.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
