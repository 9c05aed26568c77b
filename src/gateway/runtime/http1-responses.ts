import { Http1ResponseParser, type ResponseHead } from '../http1/response-parser.js';

export { MalformedResponseError } from '../http1/response-parser.js';

/** What the pipelined sender needs of a vendor's answer: its status, when to come back, and whether it closes. */
export interface Http1Response {
  status: number;
  /** The `Retry-After` header, as sent. */
  retryAfter: string | null;
  /** The server closes the connection after this answer (`Connection: close`, or a body delimited by the close). */
  closes: boolean;
}

/**
 * The answers to pipelined requests on one connection, each once it is complete, bodies skipped (a collection
 * endpoint's answer is its status). Throws MalformedResponseError on anything that is not HTTP/1.x.
 */
export class Http1ResponseReader {
  private head: ResponseHead | null = null;
  private completed: Http1Response[] = [];
  private readonly parser = new Http1ResponseParser({
    head: (head) => {
      this.head = head;
    },
    body: () => {},
    end: () => {
      if (this.head) this.completed.push(summary(this.head));
      this.head = null;
    },
  });

  /** The answers completed by these bytes. */
  push(chunk: Buffer): Http1Response[] {
    this.completed = [];
    this.parser.push(chunk);
    return this.completed;
  }

  /** The connection ended: an answer whose body runs to the close is complete now. */
  end(): Http1Response | null {
    this.completed = [];
    this.parser.finish();
    return this.completed[0] ?? null;
  }
}

function summary({ status, headers, closes }: ResponseHead): Http1Response {
  let retryAfter: string | null = null;
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === 'retry-after') retryAfter = headers[i + 1];
  return { status, retryAfter, closes };
}
