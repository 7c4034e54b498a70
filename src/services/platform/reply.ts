/**
 * A service's answer when it says more than its data: a markdown form of the same content (served
 * for `.md` paths and `Accept: text/markdown`, and as MCP text) and how long it stays fresh when
 * that depends on the answer (e.g. a stored weather snapshot holds longer than a live forecast).
 */
export class Reply<T> {
  readonly data: T;
  readonly options: { markdown?: string; cacheControl?: string };
  constructor(data: T, options: { markdown?: string; cacheControl?: string } = {}) {
    this.data = data;
    this.options = options;
  }
}

export function reply<T>(data: T, options: { markdown?: string; cacheControl?: string } = {}): Reply<T> {
  return new Reply(data, options);
}

/** The data of a handler's result, whether or not it came wrapped. */
export function unwrap<T>(result: T | Reply<T>): Reply<T> {
  return result instanceof Reply ? result : new Reply(result);
}
