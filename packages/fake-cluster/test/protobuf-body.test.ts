// The protobuf body decoder held to the API machinery's own encoder: each fixture is an object encoded by
// k8s.io/apimachinery's protobuf serializer beside encoding/json's text of the same object
// (test/cluster/tools/protobuf-schema -fixtures), and the decoder must read the first into the second.
import { describe, expect, it } from "vitest";
import { decodeProtobufBody, ProtobufBodyError } from "../src/protobuf-body.js";
import PROTOBUF_BODIES from "./fixtures/protobuf-bodies.json" with { type: "json" };

/** JSON null decodes as absent: drop it before comparing. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === null ? [] : [[k, withoutNulls(v)]])));
}

describe("protobuf request bodies", () => {
  it.each(Object.entries(PROTOBUF_BODIES))("%s reads as encoding/json writes it", (_name, fixture) => {
    expect(decodeProtobufBody(Buffer.from(fixture.protobuf, "base64"))).toEqual(withoutNulls(fixture.json));
  });

  it("refuses a body without the envelope, a truncated one, and names a kind it has no schema for", () => {
    expect(() => decodeProtobufBody(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(/does not start with the protobuf envelope/);
    const configMap = Buffer.from(PROTOBUF_BODIES.configmap.protobuf, "base64");
    expect(() => decodeProtobufBody(configMap.subarray(0, configMap.length - 3))).toThrow(ProtobufBodyError);
    // runtime.Unknown { typeMeta { apiVersion: "v1", kind: "Secret" } }
    const secret = Buffer.concat([
      Buffer.from("k8s\0"),
      Buffer.from([0x0a, 0x0c, 0x0a, 0x02]),
      Buffer.from("v1"),
      Buffer.from([0x12, 0x06]),
      Buffer.from("Secret"),
    ]);
    expect(() => decodeProtobufBody(secret)).toThrow(/protobuf bodies of v1 Secret are not read by the shiplog fake cluster/);
  });
});
