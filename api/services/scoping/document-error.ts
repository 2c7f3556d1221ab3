import { encodeHexLowerCase } from "@oslojs/encoding";
import { sha256 } from "@oslojs/crypto/sha2";

/** Why a document cannot be planned from, in words for its owner. */
export class DocumentError extends Error {
  constructor(
    readonly kind: "unsupported" | "unreadable" | "empty" | "too-long",
    message: string,
  ) {
    super(message);
    this.name = "DocumentError";
  }
}

/** A failure to read the document is stored on its job with this prefix; the message after it is written for the owner. */
export const DOCUMENT_FAILURE_PREFIX = "document: ";

export const textSha256 = (text: string) => encodeHexLowerCase(sha256(new TextEncoder().encode(text)));
