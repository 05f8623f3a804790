// streamText over @ai-sdk/openai's Chat Completions model (openai.chat), as a driver of the
// openai-chat dialect. Its tracker (StreamingToolCallTracker) hands the calls over only when the
// stream ends (its flush): per message.
import { createOpenAI } from '@ai-sdk/openai';
import { driveStreamText } from './stream-text.mjs';

driveStreamText({
  name: 'ai-sdk-openai',
  dialect: 'openai-chat',
  emitsCalls: 'per-message',
  model: (fetch) => createOpenAI({ apiKey: 'offline', fetch }).chat('gpt-4o'),
});
