import { ConfigError, type Env, optional } from './env.js';

export interface AiConfig {
  baseUrl: string;
  model: string;
  apiKey: string;
}

/** The AI provider for scan summaries (OpenAI-compatible): both AI_BASE_URL and AI_MODEL, or neither. */
export function aiConfig(env: Env): AiConfig | null {
  const baseUrl = optional(env, 'AI_BASE_URL');
  const model = optional(env, 'AI_MODEL');
  if (!baseUrl && !model) return null;
  if (!baseUrl || !model)
    throw new ConfigError('Set both AI_BASE_URL and AI_MODEL (and AI_API_KEY) to use an AI provider');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), model, apiKey: env.AI_API_KEY ?? '' };
}
