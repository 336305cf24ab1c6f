import assert from "node:assert/strict";
import { HpackError } from "../../clients/ts/src/transport/h2/hpack-error.js";

// Every assert.ok has a message: without one, assert reads the test's source to quote the
// expression, which under tsx's transform can take minutes.

/** Field is one header field: its name and value. */
export type Field = [string, string];

/** hex is the bytes a hex string names, whitespace ignored. */
export const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ""), "hex");

/** throwsHpack asserts that fn throws an HpackError whose message contains `part`. */
export function throwsHpack(fn: () => unknown, part: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof HpackError, `expected HpackError, got ${String(err)}`);
    assert.ok(err.message.includes(part), `message ${JSON.stringify(err.message)} lacks ${JSON.stringify(part)}`);
    return true;
  });
}

/** RFC 7541 C.3-C.6: header blocks on one connection, the fields and the dynamic table (newest first) after each. */
export const SERIES: { section: string; tableSize: number; steps: { hex: string; fields: Field[]; table: Field[]; size: number }[] }[] = [
  {
    section: "C.3",
    tableSize: 4096,
    steps: [
      {
        hex: "828684410f7777772e6578616d706c652e636f6d",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"]],
        table: [[":authority", "www.example.com"]],
        size: 57,
      },
      {
        hex: "828684be58086e6f2d6361636865",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"], ["cache-control", "no-cache"]],
        table: [["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 110,
      },
      {
        hex: "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565",
        fields: [[":method", "GET"], [":scheme", "https"], [":path", "/index.html"], [":authority", "www.example.com"], ["custom-key", "custom-value"]],
        table: [["custom-key", "custom-value"], ["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 164,
      },
    ],
  },
  {
    section: "C.4",
    tableSize: 4096,
    steps: [
      {
        hex: "828684418cf1e3c2e5f23a6ba0ab90f4ff",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"]],
        table: [[":authority", "www.example.com"]],
        size: 57,
      },
      {
        hex: "828684be5886a8eb10649cbf",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"], ["cache-control", "no-cache"]],
        table: [["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 110,
      },
      {
        hex: "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf",
        fields: [[":method", "GET"], [":scheme", "https"], [":path", "/index.html"], [":authority", "www.example.com"], ["custom-key", "custom-value"]],
        table: [["custom-key", "custom-value"], ["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 164,
      },
    ],
  },
  {
    section: "C.5",
    tableSize: 256,
    steps: [
      {
        hex: "4803333032580770726976617465611d4d6f6e2c203231204f637420323031332032303a31333a323120474d546e1768747470733a2f2f7777772e6578616d706c652e636f6d",
        fields: [[":status", "302"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"], [":status", "302"]],
        size: 222,
      },
      {
        hex: "4803333037c1c0bf",
        fields: [[":status", "307"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [[":status", "307"], ["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"]],
        size: 222,
      },
      {
        hex: "88c1611d4d6f6e2c203231204f637420323031332032303a31333a323220474d54c05a04677a69707738666f6f3d4153444a4b48514b425a584f5157454f50495541585157454f49553b206d61782d6167653d333630303b2076657273696f6e3d31",
        fields: [[":status", "200"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"], ["location", "https://www.example.com"], ["content-encoding", "gzip"], ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"]],
        table: [["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"], ["content-encoding", "gzip"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"]],
        size: 215,
      },
    ],
  },
  {
    section: "C.6",
    tableSize: 256,
    steps: [
      {
        hex: "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3",
        fields: [[":status", "302"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"], [":status", "302"]],
        size: 222,
      },
      {
        hex: "4883640effc1c0bf",
        fields: [[":status", "307"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [[":status", "307"], ["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"]],
        size: 222,
      },
      {
        hex: "88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007",
        fields: [[":status", "200"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"], ["location", "https://www.example.com"], ["content-encoding", "gzip"], ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"]],
        table: [["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"], ["content-encoding", "gzip"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"]],
        size: 215,
      },
    ],
  },
];
