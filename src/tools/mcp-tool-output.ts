import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { formatSize } from '../format-size.ts';
import type { ToolOutput } from './tool.ts';

/**
 * An MCP tool's result as text for the model: text blocks joined, a text resource's text with its
 * address, images, audio, binary resources and links summarised in a line (the gateway's tool
 * messages carry text only), `structuredContent` when nothing else came, and `isError` kept so the
 * model and the progress line know the call failed.
 */
export function mcpToolOutput(result: {
  content?: readonly unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}): ToolOutput {
  const blocks = (result.content ?? []) as readonly ContentBlock[];
  const parts = blocks.map(describeBlock);
  // Servers of the 2024-11-05 protocol may answer with `toolResult` instead of content.
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  } else if (parts.length === 0 && result.toolResult !== undefined) {
    parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  }
  const text = parts.join('\n\n') || '(the tool returned nothing)';
  return result.isError === true ? { text, isError: true } : { text };
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image: ${block.mimeType}, ${formatSize(base64Bytes(block.data))}, not shown]`;
    case 'audio':
      return `[audio: ${block.mimeType}, ${formatSize(base64Bytes(block.data))}, not played]`;
    case 'resource_link':
      return `[resource link: ${block.name}${block.title ? ` (${block.title})` : ''} ${block.uri}${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource && typeof resource.text === 'string') {
        return `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}]\n${resource.text}`;
      }
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri}: ${resource.mimeType ?? 'binary'}, ${formatSize(base64Bytes(blob))}, not shown]`;
    }
    default:
      return `[${String((block as { type?: unknown }).type)} content, not shown]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
