/**
 * Deflates a text the page saves (store/persistence.ts) off the page's thread: deflateAnswer.ts does the work,
 * deflateClient.ts sends the texts.
 */
import { deflateAnswer, type DeflateRequest } from "./deflateAnswer.ts";

self.onmessage = (e: MessageEvent<DeflateRequest>) => {
  const answer = deflateAnswer(e.data);
  (self as unknown as { postMessage(m: unknown, t: Transferable[]): void }).postMessage(
    answer,
    "bytes" in answer ? [answer.bytes.buffer] : [],
  );
};
