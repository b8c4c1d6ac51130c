/**
 * How a request is named in the omni pipeline: the client's id (X-Request-Id, or the realtime response's
 * `metadata.request_id`) as vLLM-Omni echoes it, and a key unique in this process for the pipeline's stages and
 * the fault plan (a client may send the same id twice). One counter for every route.
 */
import { randomUUID } from 'node:crypto';

let keySeq = 0;

/** The X-Request-Id header's value, or a fresh id with `prefix` (`chatcmpl-`, `speech-`). */
export function requestIdOf(header: string | string[] | undefined, prefix: string): string {
  return (Array.isArray(header) ? header[0] : header) || `${prefix}${randomUUID()}`;
}

/** The pipeline key of one request; `tag` says which route made it (readable in logs and reports). */
export function pipelineKey(requestId: string, tag: string): string {
  return `${requestId}#${tag}${++keySeq}`;
}
