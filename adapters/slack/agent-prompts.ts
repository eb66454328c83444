/**
 * What the agent view shows before a person writes: the description and the suggested prompts,
 * in the manifest and, as the person moves around Slack, through
 * `assistant.threads.setSuggestedPrompts`.
 */

/** The manifest's `agent_view.agent_description`: at most 300 characters (@slack/web-api manifest types). */
export const agentDescription =
  'Ask me anything, show me a screenshot, or have me draw. Each thread is its own conversation; I remember it until you /reset.';

/** One suggested prompt: the button's title and the message it sends. */
export interface SuggestedPrompt {
  readonly title: string;
  readonly message: string;
}

/** Slack shows "up to four suggested prompts" (docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts). */
export const maxSuggestedPrompts = 4;

const general: readonly SuggestedPrompt[] = [
  { title: 'What can you do?', message: 'What can you help me with, and which commands do you have?' },
  { title: 'Explain a screenshot', message: 'I will share a screenshot: explain what it shows.' },
  { title: 'Draft a reply', message: 'Help me draft a short, friendly reply to a message.' },
];

/** The prompts of the manifest: what a person sees before parley has heard from Slack. */
export const manifestSuggestedPrompts: readonly SuggestedPrompt[] = general;

/**
 * The prompts for what the person is looking at: about the channel they view beside parley when
 * there is one ("Summarize this channel", "What did I miss?"), else the general ones.
 */
export function suggestedPromptsFor(viewedChannel: string | undefined): {
  title: string;
  prompts: SuggestedPrompt[];
} {
  if (viewedChannel === undefined) return { title: 'Try asking', prompts: [...general] };
  const channel = `<#${viewedChannel}>`;
  return {
    title: 'About this channel',
    prompts: [
      { title: 'Summarize this channel', message: `Summarize the recent messages in ${channel}.` },
      { title: 'What did I miss?', message: `What did I miss in ${channel}? List what needs me first.` },
      ...general.slice(0, maxSuggestedPrompts - 2),
    ],
  };
}
