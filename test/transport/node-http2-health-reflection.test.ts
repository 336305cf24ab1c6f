import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/ts/grpc/health/v1/health_pb.js";
import { ServerReflection } from "../../gen/ts/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ServerReflectionAlpha } from "../../gen/ts/grpc/reflection/v1alpha/reflection_pb.js";
import { FileTools, file_toolhost_files_v1_file_tools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { createHealthService } from "../../src/transport/node-http2/health-service.js";
import { reflectionServices } from "../../src/transport/node-http2/reflection-service.js";

describe("grpc.health.v1 as a connect service", () => {
  it("answers Check by name, NOT_FOUND for an unknown one, and Watch follows a change", async () => {
    const health = createHealthService({ "": "SERVING", [FileTools.typeName]: "SERVING" });
    const transport = createRouterTransport((router) => router.service(Health, health.impl));
    const client = createClient(Health, transport);
    assert.equal((await client.check({ service: "" })).status, HealthCheckResponse_ServingStatus.SERVING);
    const unknown = await client.check({ service: "nope" }).catch((err: unknown) => ConnectError.from(err));
    assert.ok(unknown instanceof ConnectError);
    assert.equal(unknown.code, 5);
    const stop = new AbortController();
    const watch = client.watch({ service: FileTools.typeName }, { signal: stop.signal })[Symbol.asyncIterator]();
    assert.equal((await watch.next()).value?.status, HealthCheckResponse_ServingStatus.SERVING);
    health.setStatus(FileTools.typeName, "NOT_SERVING");
    assert.equal((await watch.next()).value?.status, HealthCheckResponse_ServingStatus.NOT_SERVING);
    stop.abort();
    await watch.return?.();
  });
});

describe("grpc.reflection as connect services", () => {
  const services = reflectionServices([FileTools.typeName], [file_toolhost_files_v1_file_tools]);
  const transport = createRouterTransport((router) => {
    for (const { service, impl } of services) router.service(service, impl);
  });

  it("lists the services and itself, and describes a symbol with its file's imports (v1)", async () => {
    const client = createClient(ServerReflection, transport);
    async function* requests() {
      yield { messageRequest: { case: "listServices" as const, value: "" } };
      yield { messageRequest: { case: "fileContainingSymbol" as const, value: `${FileTools.typeName}.ReadFile` } };
      yield { messageRequest: { case: "fileContainingSymbol" as const, value: "no.such.Thing" } };
    }
    const answers = [];
    for await (const answer of client.serverReflectionInfo(requests())) answers.push(answer);
    assert.equal(answers.length, 3);
    const listed = answers[0]!.messageResponse;
    assert.equal(listed.case, "listServicesResponse");
    assert.deepEqual(
      listed.value?.service.map((s) => s.name),
      [FileTools.typeName, ServerReflection.typeName, ServerReflectionAlpha.typeName],
    );
    const described = answers[1]!.messageResponse;
    assert.equal(described.case, "fileDescriptorResponse");
    const names = described.value!.fileDescriptorProto.map(
      (bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name,
    );
    assert.equal(names.at(-1), file_toolhost_files_v1_file_tools.proto.name);
    for (const dependency of file_toolhost_files_v1_file_tools.dependencies)
      assert.ok(names.includes(dependency.proto.name));
    const missing = answers[2]!.messageResponse;
    assert.equal(missing.case, "errorResponse");
    assert.equal(missing.value?.errorCode, 5);
  });

  it("answers v1alpha as v1", async () => {
    const client = createClient(ServerReflectionAlpha, transport);
    async function* requests() {
      yield {
        messageRequest: { case: "fileByFilename" as const, value: file_toolhost_files_v1_file_tools.proto.name },
      };
    }
    const cases = [];
    for await (const answer of client.serverReflectionInfo(requests())) cases.push(answer.messageResponse.case);
    assert.deepEqual(cases, ["fileDescriptorResponse"]);
  });
});
