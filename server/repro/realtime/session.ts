/**
 * One `/v1/realtime` WebSocket session of the reproduction server
 * (docs/design.md#realtime): the session settings, the conversation's last
 * user text, the input audio buffer (committed explicitly or by server VAD),
 * and at most one response at a time, run through the same thinker → talker
 * → Code2Wav pipeline and fault plan as a chat stream. Audio leaves as
 * PCM16 deltas; a hung Code2Wav window hangs the turn exactly as it hangs a
 * chat stream (and the watchdog reports it the same way). Events leave in
 * the client's dialect (dialect.ts); a session seeded with vLLM-Omni's
 * `duplex_initial_user_text` answers it once its first audio arrives
 * (native.ts). What a client may send is bounded (limits.ts).
 */
import type { WebSocket } from 'ws';
import type { ChatRequest } from '../requests/chatRequest.ts';
import { runOmniRequest, type OmniDeps } from '../pipeline/omniRequest.ts';
import { pipelineKey } from '../pipeline/requestKeys.ts';
import { SAMPLE_RATE } from '../code2wav/kernels/model.ts';
import { errorEvent, newId, responseObject, serverEvent, sessionObject, wavPcmBase64 } from './events.ts';
import type { ServerEvent, SessionShape } from './events.ts';
import { ServerVad } from './vad.ts';
import { applySessionUpdate, userItemText } from './clientEvents.ts';
import { dialectAfterUpdate, inDialect, type Dialect } from './dialect.ts';
import { nativeSeed } from './native.ts';
import { Stage0Clock, type Stage0Snapshot } from './stageMetrics.ts';
import { messageTooLarge, SessionTextBudget } from './limits.ts';

export interface RealtimeDeps {
  model: string;
  omni: OmniDeps;
  active: Set<AbortController>;
}

interface ActiveResponse {
  id: string;
  controller: AbortController;
}

export class RealtimeSession {
  readonly shape: SessionShape;
  private lastUserText = '';
  private audioBytes = 0;
  private vad: ServerVad | null = null;
  private inputItemId = newId('item');
  private response: ActiveResponse | null = null;
  private closed = false;
  /** Beta names unless the client speaks GA (dialect.ts). */
  private dialect: Dialect = 'beta';
  /** The target text a model-native duplex session answers at its first audio (native.ts), until it does. */
  private seededText: string | null = null;
  private readonly textBudget = new SessionTextBudget();

  constructor(
    private readonly socket: WebSocket,
    private readonly deps: RealtimeDeps,
    private readonly betaHeader = false,
  ) {
    this.shape = {
      id: newId('sess'),
      model: deps.model,
      outputModalities: ['audio'],
      instructions: '',
      turnDetection: null,
      sampleRateHz: SAMPLE_RATE,
      inputRateHz: SAMPLE_RATE,
    };
    socket.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    socket.on('close', () => this.onClose());
    socket.on('error', () => this.onClose());
    this.send(serverEvent('session.created', { session: sessionObject(this.shape, this.dialect) }));
  }

  send(event: ServerEvent): void {
    const named = inDialect(event, this.dialect);
    if (named && !this.closed && this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(named));
  }

  private onClose(): void {
    this.closed = true;
    this.response?.controller.abort();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (isBinary)
      return this.send(errorEvent('binary frames are not accepted: send JSON text events', 'invalid_frame'));
    // Refused before it is parsed: a parsed 15 MB prompt cost the server ~640 MB.
    const tooLarge = messageTooLarge(data.length);
    if (tooLarge) return this.send(errorEvent(tooLarge, 'message_too_large'));
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.send(errorEvent('the event is not valid JSON', 'invalid_json'));
    }
    if (!event || typeof event !== 'object' || typeof event.type !== 'string')
      return this.send(errorEvent('an event must be a JSON object with a string type', 'invalid_event'));
    this.handle(event.type, event, typeof event.event_id === 'string' ? event.event_id : undefined);
  }

  private handle(type: string, event: Record<string, unknown>, eventId: string | undefined): void {
    switch (type) {
      case 'session.update': {
        const problem = applySessionUpdate(this.shape, event.session);
        if (problem) return this.send(errorEvent(problem, 'invalid_value', 'invalid_request_error', eventId));
        const seed = nativeSeed(event.session);
        if (typeof seed === 'string' && seed !== '') {
          const over = this.textBudget.take(seed.length);
          if (over) return this.send(errorEvent(over, 'session_text_limit', 'invalid_request_error', eventId));
          this.seededText = seed;
        }
        this.dialect = dialectAfterUpdate(this.dialect, this.betaHeader, event.session);
        const vad = this.shape.turnDetection;
        this.vad = vad ? new ServerVad(this.shape.inputRateHz, vad.threshold, vad.silenceDurationMs) : null;
        return this.send(serverEvent('session.updated', { session: sessionObject(this.shape, this.dialect) }));
      }
      case 'conversation.item.create':
        return this.createItem(event.item, eventId);
      case 'input_audio_buffer.append':
        return this.append(event.audio, eventId);
      case 'input_audio_buffer.commit':
        if (this.audioBytes === 0)
          return this.send(
            errorEvent('the input audio buffer is empty', 'input_audio_buffer_commit_empty', undefined, eventId),
          );
        this.commit();
        if (event.response_create === true) this.startResponse(undefined, eventId);
        return;
      case 'input_audio_buffer.clear':
        this.audioBytes = 0;
        return this.send(serverEvent('input_audio_buffer.cleared'));
      case 'response.create':
        return this.startResponse(event.response, eventId);
      case 'response.cancel':
        this.response?.controller.abort();
        return;
      case 'session.close':
        this.send(serverEvent('session.closed', { session_id: this.shape.id }));
        this.socket.close(1000, 'session closed');
        return;
      case 'playback.ack':
      case 'session.event_ack':
      case 'session.heartbeat':
        return; // the client's playback position: nothing here depends on it
      default:
        return this.send(errorEvent(`unknown event type '${type}'`, 'unknown_event', undefined, eventId));
    }
  }

  private createItem(item: unknown, eventId: string | undefined): void {
    const text = userItemText(item);
    if (text === null)
      return this.send(
        errorEvent('item must be a message with input_text content', 'invalid_value', undefined, eventId),
      );
    if (text !== undefined) {
      const over = this.textBudget.take(text.length);
      if (over) return this.send(errorEvent(over, 'session_text_limit', 'invalid_request_error', eventId));
      this.lastUserText = text;
    }
    const id = typeof (item as { id?: unknown }).id === 'string' ? (item as { id: string }).id : newId('item');
    const stored = { ...(item as object), id, object: 'realtime.item', status: 'completed' };
    this.send(serverEvent('conversation.item.added', { previous_item_id: null, item: stored }));
    this.send(serverEvent('conversation.item.done', { previous_item_id: null, item: stored }));
  }

  private append(audio: unknown, eventId: string | undefined): void {
    if (typeof audio !== 'string')
      return this.send(errorEvent('audio must be base64 PCM16', 'invalid_value', undefined, eventId));
    const pcm = Buffer.from(audio, 'base64');
    this.audioBytes += pcm.length;
    // A model-native session speaks its seeded text as soon as audio units arrive, silence included.
    if (this.seededText !== null && !this.response) {
      this.lastUserText = this.seededText;
      this.seededText = null;
      this.startResponse(undefined, undefined);
    }
    for (const b of this.vad?.push(pcm) ?? []) {
      if (b.type === 'speech_started') {
        this.send(
          serverEvent('input_audio_buffer.speech_started', { audio_start_ms: b.audioMs, item_id: this.inputItemId }),
        );
      } else {
        this.send(
          serverEvent('input_audio_buffer.speech_stopped', { audio_end_ms: b.audioMs, item_id: this.inputItemId }),
        );
        this.commit();
        if (this.shape.turnDetection?.createResponse) this.startResponse(undefined, undefined);
      }
    }
  }

  private commit(): void {
    this.send(serverEvent('input_audio_buffer.committed', { previous_item_id: null, item_id: this.inputItemId }));
    this.audioBytes = 0;
    this.inputItemId = newId('item');
  }

  private startResponse(spec: unknown, eventId: string | undefined): void {
    if (this.response)
      return this.send(
        errorEvent(
          'the conversation already has an active response',
          'conversation_already_has_active_response',
          undefined,
          eventId,
        ),
      );
    const id = newId('resp');
    const metadata = (spec as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    const requestId = typeof metadata?.request_id === 'string' ? metadata.request_id : id;
    const controller = new AbortController();
    this.response = { id, controller };
    void this.runResponse(id, requestId, controller);
  }

  private async runResponse(id: string, requestId: string, controller: AbortController): Promise<void> {
    const { deps } = this;
    const key = pipelineKey(requestId, 'rt');
    const itemId = newId('item');
    const wantAudio = this.shape.outputModalities.includes('audio');
    deps.active.add(controller);
    this.send(serverEvent('response.created', { response: responseObject(id, 'in_progress') }));
    const ids = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 };
    let transcript = '';
    let samples = 0;
    let status: 'completed' | 'failed' | 'cancelled' = 'completed';
    let tokens = 0;
    const stage0 = new Stage0Clock(performance.now());
    try {
      const outcome = await runOmniRequest(
        key,
        requestId,
        this.chatRequest(wantAudio),
        deps.omni,
        {
          text: (delta) => {
            stage0.token(performance.now());
            transcript += delta;
            const type = wantAudio ? 'response.output_audio_transcript.delta' : 'response.output_text.delta';
            this.send(serverEvent(type, { ...ids, delta }));
          },
          audio: (wav, n) => {
            samples += n;
            this.send(
              serverEvent('response.output_audio.delta', {
                ...ids,
                delta: wavPcmBase64(wav),
                sample_rate_hz: this.shape.sampleRateHz,
              }),
            );
          },
        },
        controller.signal,
      );
      tokens = outcome.tokens;
      if (controller.signal.aborted) status = 'cancelled';
    } catch (err) {
      status = 'failed';
      this.send(errorEvent(err instanceof Error ? err.message : String(err), 'processing_error', 'server_error'));
    } finally {
      deps.active.delete(controller);
      deps.omni.pool.release(key, controller.signal.aborted);
      this.response = null;
    }
    this.finishResponse(id, ids, status, transcript, samples, stage0.snapshot(tokens), wantAudio);
  }

  private finishResponse(
    id: string,
    ids: Record<string, unknown>,
    status: 'completed' | 'failed' | 'cancelled',
    transcript: string,
    samples: number,
    stage0: Stage0Snapshot,
    wantAudio: boolean,
  ): void {
    const tokens = stage0.num_tokens_out;
    if (status === 'completed') {
      if (wantAudio) {
        this.send(serverEvent('response.output_audio.done', ids));
        this.send(serverEvent('response.output_audio_transcript.done', { ...ids, transcript }));
      } else this.send(serverEvent('response.output_text.done', { ...ids, text: transcript }));
    }
    const input = Math.max(1, Math.ceil(this.lastUserText.length / 4));
    this.send(
      serverEvent('response.done', {
        response: responseObject(id, status, {
          usage: { input_tokens: input, output_tokens: tokens, total_tokens: input + tokens },
          // stage_metrics as vLLM-Omni's realtime server reports them: upstream's newest client counts stage 0's
          // num_tokens_out as the response's output tokens and reads its TPOT/ITL there (stageMetrics.ts).
          metadata: {
            audio_duration_ms: (samples * 1000) / this.shape.sampleRateHz,
            stage_metrics: { '0': stage0 },
          },
        }),
      }),
    );
  }

  private chatRequest(wantAudio: boolean): ChatRequest {
    return {
      model: this.shape.model,
      stream: true,
      includeUsage: false,
      continuousUsage: false,
      wantText: true,
      wantAudio,
      maxTokens: null,
      maxNewTokens: null,
      ignoreEos: false,
      stageMetrics: false,
      userText: this.lastUserText,
      promptTokens: Math.max(1, Math.ceil(this.lastUserText.length / 4)),
    };
  }
}
