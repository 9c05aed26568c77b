import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 400;
const SOURCE_FILE = /\.(ts|js|css)$/;

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full);
    return SOURCE_FILE.test(entry.name) ? [full] : [];
  });
}

describe('source files', () => {
  it(`stay under ${MAX_LINES} lines (split along their seams instead)`, () => {
    const tooLong = sourceFiles(path.resolve('src'))
      .map((file) => ({
        file: path.relative(process.cwd(), file),
        lines: fs.readFileSync(file, 'utf8').split('\n').length,
      }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(tooLong).toEqual([]);
  });
});
