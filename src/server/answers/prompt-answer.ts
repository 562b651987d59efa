// The shapes of a prompt's HTTP answers (made by prompt-response.ts, kept on the rendered prompt).

/** A composed prompt's HTTP answer, independent of the server framework. */
export interface PromptAnswer {
  status: 200 | 304;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** UTF-8 bytes; undefined for 304. */
  body?: Uint8Array<ArrayBuffer>;
  /** The headers as node's flat list, once `rawHeaders` (prompt-response.ts) has made it. */
  raw?: string[];
}

/** The answers made of one rendered prompt, by representation (`promptAnswer` in prompt-response.ts makes them). */
export interface PromptAnswers {
  text?: PromptAnswer;
  json?: PromptAnswer;
  textNotModified?: PromptAnswer;
  jsonNotModified?: PromptAnswer;
}
