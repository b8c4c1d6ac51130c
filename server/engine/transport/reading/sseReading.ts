/**
 * The chat backends' response reading: an SSE stream, parsed by StreamParser
 * (docs/design.md#stream). A 200 that is not `text/event-stream` and carried
 * no event (an HTML error page, a proxy's answer) is no completion.
 */
import { StreamParser } from './streamParser.ts';
import type { ResponseReading } from './responseReading.ts';

export const SSE_READING: ResponseReading = {
  open: (record, opts) => new StreamParser(record, opts),
  notAnAnswer(contentType, messages) {
    if (messages > 0 || isEventStream(contentType)) return null;
    return `response is not an event stream: ${contentType?.split(';')[0].trim() || '(no content-type)'}`;
  },
  wrongBody: 'REQ_NOT_EVENT_STREAM',
};

/**
 * openai-chat-omni's reading: the same, keeping each request's stage fields for `request_stage_metrics`, and with no
 * positive client ITL the request's TPOT/ITL come from stage 0's engine metrics (chatStage0.ts), as vLLM-Omni's chat
 * client does; vLLM's openai-chat client reads no metrics.
 */
export const CHAT_OMNI_SSE_READING: ResponseReading = {
  ...SSE_READING,
  open: (record, opts) => new StreamParser(record, { ...opts, omniStageMetrics: true }),
};

function isEventStream(contentType: string | null): boolean {
  return contentType !== null && contentType.split(';')[0].trim() === 'text/event-stream';
}
