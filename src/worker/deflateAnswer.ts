/**
 * The deflate worker's answer to one text (deflate.worker.ts): its UTF-8 bytes deflated, or why not. At 10,000
 * pods (7.7 MB) the encoding alone held the page's thread for 90 ms and more after each pause in typing
 * (Chromium profile of the bench's edits) when fflate's own worker took only the deflating.
 */
import { deflateSync, strToU8 } from "fflate";

export interface DeflateRequest {
  id: number;
  text: string;
}
export type DeflateAnswer = { id: number; bytes: Uint8Array } | { id: number; error: string };

export function deflateAnswer({ id, text }: DeflateRequest): DeflateAnswer {
  try {
    return { id, bytes: deflateSync(strToU8(text), { level: 1 }) };
  } catch (err) {
    return { id, error: err instanceof Error ? err.message : String(err) };
  }
}
