/**
 * Fastify validator for TypeBox schemas (response schemas document the replies): bodies get their declared defaults
 * filled in; querystrings and params are also converted (strings → numbers)
 * as HTTP needs. Errors keep TypeBox's `instancePath` so server/dashboard/plugins/errors.ts
 * can name the field. A value the schema accepts is then walked for what no database can store (U+0000, an
 * unpaired surrogate, a number beyond a double; shared/storable.ts), so every route refuses it with a 400 naming
 * the field before anything is stored — free-form fields (metadata, configs, `Unknown` events) included.
 */
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { findUnstorable } from '../../../shared/storage/storable.ts';

export function installTypeBoxValidation(app: FastifyInstance): void {
  // Replies are built from typed objects already; compiling a fast-json-stringify serializer per
  // route costs hundreds of ms on the first request of each, more than JSON.stringify ever saves here.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const s = schema as TSchema;
    const check = Compile(s);
    return (value: unknown) => {
      const v = httpPart === 'body' ? Value.Default(s, value) : Value.Convert(s, Value.Default(s, value));
      if (!check.Check(v)) return { error: check.Errors(v) as unknown as Error };
      // A text body (NDJSON, an uploaded file) is read by its route, which checks it line by line or file by file.
      const bad = typeof v === 'string' ? null : findUnstorable(v);
      if (bad) return { error: [{ instancePath: bad.pointer, message: bad.message }] as unknown as Error };
      return { value: v };
    };
  });
}
