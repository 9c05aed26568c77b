import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from 'typebox';

let ajv: Ajv | undefined;

/**
 * Checks single values outside a request (the CLI's arguments) against the schemas the API validates bodies with,
 * with the same formats (ajv-formats' full mode), so a rule such as `format: 'email'` is written once.
 * Compiled on first use.
 */
export function schemaCheck<T extends TSchema>(schema: T): (value: unknown) => value is Static<T> {
  let check: ((value: unknown) => boolean) | undefined;
  return (value: unknown): value is Static<T> => {
    ajv ??= addFormats.default(new Ajv({ strict: false }));
    check ??= ajv.compile(schema);
    return check(value);
  };
}
