import type { Surface } from '../../src/delivery/surface.ts';

/** A chat reply's surface on Slack, whose finished replies carry 👍/👎 (render-blocks.ts). */
export function withFeedbackButtons(surface: Surface): Surface {
  return { ...surface, hasFeedbackButtons: true };
}
