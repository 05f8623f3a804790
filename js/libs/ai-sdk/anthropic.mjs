// streamText over @ai-sdk/anthropic's Messages model, as a driver of the anthropic dialect. The
// provider hands a call over at its block's content_block_stop: per call.
import { createAnthropic } from '@ai-sdk/anthropic';
import { driveStreamText } from './stream-text.mjs';

driveStreamText({
  name: 'ai-sdk-anthropic',
  dialect: 'anthropic',
  emitsCalls: 'per-call',
  model: (fetch) => createAnthropic({ apiKey: 'offline', fetch })('claude-sonnet-4-5'),
});
