import type { App } from '@slack/bolt';
import type { Logger } from '../../src/log.ts';

/**
 * The replies being written in each thread, so that Slack's own stop control can end them. Slack
 * sends `agent_session_stopped` with the channel and thread when a person "clicks the native stop
 * button shown while an agent session is in the processing status", stops the app's streaming
 * messages there, and leaves the rest to the app: stop the work and end the session with
 * chat.stopStream (docs.slack.dev/reference/events/agent_session_stopped). The Stop button stays
 * for places without it. In-process, like Stop: the event reaches the process that holds the stream
 * only when one process serves the workspace (with several, the Stop button still works everywhere).
 */
export interface ThreadStops {
  /** Registers a reply in a thread; its signal aborts when the person stops the thread. */
  track(place: { channel: string; threadTs: string }): { signal: AbortSignal; release: () => void };
  /** Stops every reply being written in the thread; false when there was none. */
  stop(place: { channel: string; threadTs: string }): boolean;
}

export function createThreadStops(): ThreadStops {
  const controllers = new Map<string, Set<AbortController>>();
  const keyOf = ({ channel, threadTs }: { channel: string; threadTs: string }) => `${channel} ${threadTs}`;
  return {
    track(place) {
      const key = keyOf(place);
      const controller = new AbortController();
      const inThread = controllers.get(key) ?? new Set();
      inThread.add(controller);
      controllers.set(key, inThread);
      return {
        signal: controller.signal,
        release() {
          inThread.delete(controller);
          if (inThread.size === 0) controllers.delete(key);
        },
      };
    },
    stop(place) {
      const inThread = controllers.get(keyOf(place));
      if (inThread === undefined) return false;
      for (const controller of inThread) controller.abort();
      return true;
    },
  };
}

interface AgentSessionStoppedEvent {
  channel?: string;
  thread_ts?: string;
  streaming_message_ts?: string[];
}

/** Answers Slack's stop control (`agent_session_stopped`) by stopping the thread's replies. */
export function registerNativeStop({
  app,
  adapter,
}: {
  app: App;
  adapter: { readonly threadStops: ThreadStops; readonly logger: Logger };
}): void {
  // @slack/bolt 5.1 does not name this event in its types; @slack/types has AgentSessionStoppedEvent.
  app.event('agent_session_stopped' as 'app_mention', async ({ event }) => {
    const stopped = event as unknown as AgentSessionStoppedEvent;
    if (stopped.channel === undefined || stopped.thread_ts === undefined) return;
    const wasRunning = adapter.threadStops.stop({ channel: stopped.channel, threadTs: stopped.thread_ts });
    adapter.logger.info(
      {
        channel: stopped.channel,
        threadTs: stopped.thread_ts,
        streams: stopped.streaming_message_ts?.length ?? 0,
        wasRunning,
      },
      'slack: the person stopped the reply with Slack’s stop control',
    );
  });
}
