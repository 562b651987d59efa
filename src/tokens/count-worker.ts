import { parentPort } from 'node:worker_threads';
import { getTokenizer, type TokenizerName } from './tokenizer.js';

// The body of the token-counting worker thread (started by `count-off-thread.ts`):
// counts the texts of each message and posts the counts back under the message's id.

interface CountMessage {
  id: number;
  tokenizer: TokenizerName;
  texts: string[];
}

parentPort?.on('message', (message: CountMessage) => {
  const tk = getTokenizer(message.tokenizer);
  parentPort!.postMessage({ id: message.id, counts: message.texts.map((t) => tk.count(t)) });
});
