// streamText over @ai-sdk/google's Gemini API model (streamGenerateContent?alt=sse), as a driver
// of the gemini-sse dialect. Gemini sends each function call whole, and the provider hands it over
// in the chunk that carries it: per call.
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { driveStreamText } from './stream-text.mjs';

driveStreamText({
  name: 'ai-sdk-google',
  dialect: 'gemini-sse',
  emitsCalls: 'per-call',
  model: (fetch) => createGoogleGenerativeAI({ apiKey: 'offline', fetch })('gemini-2.5-flash'),
});
