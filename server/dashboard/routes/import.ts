/**
 * POST /api/import: the body is a vLLM `--save-result` file as it is (JSON or
 * JSON-lines, bare NaN/Infinity allowed), so it is read as UTF-8 text (in
 * the import worker), never as JSON. The file name may come in `x-filename` (URI-encoded).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorReplySchema, ImportReplySchema } from '../../../shared/protocol/apiSchemas.ts';
import { ResultImporter } from '../import/importFile.ts';
import { StallscopeError } from '../../../shared/errors.ts';
import { unstorableText } from '../../../shared/storage/storable.ts';

export const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

export const importRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Encapsulated: only this plugin's routes read JSON bodies as text.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    ['application/json', 'text/plain', 'application/x-ndjson', 'application/jsonl', 'application/octet-stream'],
    // As bytes: the worker decodes them, and they move to it without a copy (a 28 MB string was ~50 ms to clone).
    { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT },
    (_r, body, done) => done(null, body),
  );
  const importer = new ResultImporter(app.store);
  app.addHook('preClose', async () => importer.shutdown());
  app.post(
    '/api/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        response: { 201: ImportReplySchema, 400: ErrorReplySchema, 413: ErrorReplySchema },
      },
    },
    async (req, reply) => {
      const raw = req.headers['x-filename'];
      let filename: string | null = null;
      if (typeof raw === 'string' && raw) {
        try {
          filename = decodeURIComponent(raw).slice(0, 200);
        } catch {
          filename = raw.slice(0, 200);
        }
      }
      // The name is stored as the run's label and metadata: refused, like any text no database can store.
      const unstorable = filename === null ? null : unstorableText(filename);
      if (unstorable) throw new StallscopeError('API_BAD_REQUEST', `x-filename ${unstorable}`, 'x-filename');
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      return reply.status(201).send(await importer.importText(body, filename));
    },
  );
};
