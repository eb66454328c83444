import type { StreamingWriter } from '../delivery/streaming-writer.ts';
import type { Surface } from '../delivery/surface.ts';
import {
  type ReplyMetricStatus,
  recordReplyEnded,
  recordReplyFirstText,
  recordReplyStarted,
} from './metrics.ts';

/**
 * The writer of one reply, measured: an active stream from now until it ends, the time until its
 * first text is on the platform (the first post the platform accepted), the lag between the model's
 * last token (`finish` called) and the exact final text delivered, and how it ended. The engine
 * builds its writer through this, and nothing else about the reply changes.
 */
export function measureReply({
  platform,
  surface,
  createWriter,
}: {
  /** The platform label, e.g. the first segment of the conversation key. */
  platform: string;
  surface: Surface;
  createWriter: (surface: Surface) => StreamingWriter;
}): StreamingWriter {
  const startedAtMs = performance.now();
  let isFirstTextShown = false;
  let hasText = false;
  let isEnded = false;
  recordReplyStarted({ platform });
  const end = (status: ReplyMetricStatus, finalLagSeconds?: number) => {
    if (isEnded) return;
    isEnded = true;
    recordReplyEnded({ platform, status, finalLagSeconds });
  };
  const noteShown = (text: string) => {
    if (!isFirstTextShown && text.trim() !== '') {
      isFirstTextShown = true;
      recordReplyFirstText({ platform, seconds: (performance.now() - startedAtMs) / 1000 });
    }
  };
  const { stream } = surface;
  const measuredSurface: Surface = {
    ...surface,
    async post(text, options) {
      const message = await surface.post(text, options);
      noteShown(text);
      return message;
    },
    // A native stream's first text is on screen as soon as the stream has started.
    ...(stream
      ? {
          async stream(text: string, options?: Parameters<NonNullable<Surface['stream']>>[1]) {
            const streamed = await stream.call(surface, text, options);
            if (streamed !== 'not-available') noteShown(text);
            return streamed;
          },
        }
      : {}),
  };
  const writer = createWriter(measuredSurface);
  const brokenOff = () => (hasText ? 'cut' : 'failed');
  return {
    ...writer,
    append(text) {
      if (text !== '') hasText = true;
      writer.append(text);
    },
    async finish(options) {
      const lastTokenAtMs = performance.now();
      try {
        const delivered = await writer.finish(options);
        end('complete', (performance.now() - lastTokenAtMs) / 1000);
        return delivered;
      } catch (error) {
        end(brokenOff());
        throw error;
      }
    },
    async fail(options) {
      try {
        const delivered = await writer.fail(options);
        end(delivered.text.length > 0 ? 'cut' : 'failed');
        return delivered;
      } catch (error) {
        end(brokenOff());
        throw error;
      }
    },
  };
}
