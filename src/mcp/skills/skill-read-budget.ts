/**
 * SkillReadBudget bounds the file bytes one MCP server answers in resources/read results. A
 * Streamable HTTP request builds a server for itself and may hold a JSON-RPC batch of up to 100
 * reads, whose results the SDK keeps until the last one is done and then answers as one JSON
 * text: without a bound, a few hundred bytes of request hold 100 skill files (up to 16 MiB each)
 * and, past V8's longest string, are never answered. One budget per request's server, of one
 * whole skill's bytes (maxSkillTotalBytes), still lets a request read any one skill completely.
 */
export class SkillReadBudget {
  #left: number;

  constructor(readonly max: number) {
    this.#left = max;
  }

  /** take claims `bytes` of the budget; false (and nothing claimed) when fewer are left. */
  take(bytes: number): boolean {
    if (bytes > this.#left) return false;
    this.#left -= bytes;
    return true;
  }
}
