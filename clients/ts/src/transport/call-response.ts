/** HeaderSource is where a response's header and trailer come from: its GrpcResponseReader. */
interface HeaderSource {
  readonly header: Headers;
  readonly trailer: Headers;
}

/**
 * CallResponse is a response whose header and trailer are the reader's, as Fetch Headers built
 * on first use (a class: defining getters per object is several times slower).
 */
class CallResponse<T extends object> {
  constructor(
    private readonly reader: HeaderSource,
    fields: T,
  ) {
    Object.assign(this, fields);
  }

  get header(): Headers {
    return this.reader.header;
  }

  get trailer(): Headers {
    return this.reader.trailer;
  }
}

/** response adds the reader's header and trailer to a response's fields. */
export function response<T extends object>(
  reader: HeaderSource,
  fields: T,
): T & { readonly header: Headers; readonly trailer: Headers } {
  return new CallResponse(reader, fields) as unknown as T & { readonly header: Headers; readonly trailer: Headers };
}
