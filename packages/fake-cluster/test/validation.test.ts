// The API server's checks as pure functions over plain objects: decoding (types, unknown fields) and validation
// (every field error, worded as the server words it).
import { describe, expect, it } from "vitest";
import { DecodeError, decodeObject, validateObject } from "../src/validation/index.js";
import { validateCronSchedule } from "../src/validation/cron-schedule.js";

const deployment = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "shop", ...metadata },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
    ...spec,
  },
});
/** The fields the decoding test reads from a decoded Deployment. */
interface DecodedDeployment {
  spec: { bogusField?: unknown; template: { spec: { containers: unknown[] } } };
}
const fields = (errors: { field: string }[]) => errors.map((e) => e.field);
const messageOf = (errors: { field: string; message: string }[], field: string) => errors.find((e) => e.field === field)?.message;

describe("decodeObject", () => {
  it("refuses a wrong JSON type with Go's unmarshal message and never returns it", () => {
    expect(() => decodeObject("deployments", deployment({ replicas: "three" }))).toThrow(
      new DecodeError("json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"),
    );
    expect(() => decodeObject("deployments", deployment({ replicas: 2.5 }))).toThrow(/cannot unmarshal number 2.5 .* of type int32/);
    expect(() => decodeObject("leases", { metadata: { name: "l" }, spec: { leaseDurationSeconds: "15" } })).toThrow(
      /LeaseSpec.spec.leaseDurationSeconds of type int32/,
    );
    expect(() => decodeObject("configmaps", { metadata: { name: "c", labels: { a: 1 } } })).toThrow(
      /ObjectMeta.metadata.labels of type string/,
    );
  });

  it("drops unknown fields and lists their paths; drops empty lists and maps as the Go types' omitempty does", () => {
    const decoded = decodeObject(
      "deployments",
      deployment({
        bogusField: 1,
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "a", image: "b", env: [], extra: 1 }] } },
      }),
    );
    expect([...decoded.unknownFields].sort()).toEqual(["spec.bogusField", "spec.template.spec.containers[0].extra"]);
    const value = decoded.value as DecodedDeployment;
    expect(value.spec.bogusField).toBeUndefined();
    expect(value.spec.template.spec.containers[0]).toEqual({ name: "a", image: "b" });
  });

  it("refuses binaryData that is not base64 and Lease times that are not MicroTime", () => {
    expect(() => decodeObject("configmaps", { metadata: { name: "c" }, binaryData: { k: "not base64!" } })).toThrow(
      /illegal base64 data at input byte 3/,
    );
    expect(() => decodeObject("leases", { metadata: { name: "l" }, spec: { renewTime: "2024-01-01T00:00:00Z" } })).toThrow(
      /RFC 3339 time with microseconds/,
    );
    expect(decodeObject("leases", { metadata: { name: "l" }, spec: { renewTime: "2024-01-01T00:00:00.123456Z" } }).unknownFields).toEqual(
      [],
    );
  });

  it("gives up on absurd nesting instead of overflowing the stack", () => {
    let deep: unknown = {};
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(() => decodeObject("pods", { metadata: { name: "p", annotations: {} }, spec: { affinity: deep }, status: deep })).not.toThrow();
    let list: unknown = "x";
    for (let i = 0; i < 20_000; i++) list = [list];
    expect(() => decodeObject("pods", { metadata: { name: "p", finalizers: list } })).toThrow(DecodeError);
  });
});

describe("validateObject", () => {
  it("accepts a valid Deployment", () => {
    expect(validateObject("deployments", deployment())).toEqual([]);
  });

  it("names every broken field of a Deployment at once", () => {
    const errors = validateObject(
      "deployments",
      deployment(
        {
          replicas: -5,
          selector: { matchLabels: { app: "other" } },
          template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "a" }, { name: "web" }] } },
        },
        { labels: { "x/y/z": "1", "bad label": "v" } },
      ),
    );
    expect(fields(errors)).toEqual([
      "metadata.labels",
      "metadata.labels",
      "spec.replicas",
      "spec.template.metadata.labels",
      "spec.template.spec.containers[1].name",
      "spec.template.spec.containers[1].image",
    ]);
    expect(messageOf(errors, "spec.replicas")).toBe("Invalid value: -5: must be greater than or equal to 0");
    expect(messageOf(errors, "spec.template.metadata.labels")).toBe(
      'Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    );
    expect(messageOf(errors, "spec.template.spec.containers[1].name")).toBe('Duplicate value: "web"');
    expect(messageOf(errors, "spec.template.spec.containers[1].image")).toBe("Required value");
    expect(errors[0]!.message).toMatch(/^Invalid value: "x\/y\/z": a valid label key must consist of/);
  });

  it("refuses names that are no DNS subdomain or too long, and a missing selector", () => {
    const long = validateObject("deployments", deployment({}, { name: "a".repeat(254) }));
    expect(messageOf(long, "metadata.name")).toBe(`Invalid value: "${"a".repeat(254)}": must be no more than 253 characters`);
    const upper = validateObject("configmaps", { metadata: { name: "Bad_Name" } });
    expect(messageOf(upper, "metadata.name")).toMatch(/a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters/);
    expect(messageOf(validateObject("namespaces", { metadata: { name: "a.b" } }), "metadata.name")).toMatch(/RFC 1123 label/);
    expect(messageOf(validateObject("deployments", deployment({ selector: undefined })), "spec.selector")).toBe("Required value");
  });

  it("makes apps/v1 selectors immutable", () => {
    const old = deployment();
    const changed = deployment({
      selector: { matchLabels: { app: "web", x: "y" } },
      template: { metadata: { labels: { app: "web", x: "y" } }, spec: old.spec.template.spec },
    });
    expect(fields(validateObject("deployments", changed, old))).toEqual(["spec.selector"]);
    expect(validateObject("deployments", changed, old)[0]!.message).toMatch(/: field is immutable$/);
  });

  it("checks ConfigMap keys, overlap with binaryData and the 1 MiB total", () => {
    const errors = validateObject("configmaps", {
      metadata: { name: "c" },
      data: { "a/b": "x", k: "1" },
      binaryData: { k: "MQ==" },
    });
    expect(fields(errors)).toEqual(["data[a/b]", "data[k]"]);
    expect(messageOf(errors, "data[k]")).toBe('Invalid value: "k": duplicate of key present in binaryData');
    const big = validateObject("configmaps", { metadata: { name: "c" }, data: { a: "x".repeat(1024 * 1024 + 1) } });
    expect(big).toEqual([{ reason: "FieldValueTooLong", field: "[]", message: "Too long: may not be more than 1048576 bytes" }]);
  });

  it("checks annotation totals, Lease ranges, Job restart policies and CronJob schedules", () => {
    expect(
      messageOf(validateObject("configmaps", { metadata: { name: "c", annotations: { a: "x".repeat(262144) } } }), "metadata.annotations"),
    ).toBe("Too long: may not be more than 262144 bytes");
    expect(
      messageOf(validateObject("leases", { metadata: { name: "l" }, spec: { leaseDurationSeconds: 0 } }), "spec.leaseDurationSeconds"),
    ).toBe("Invalid value: 0: must be greater than 0");
    const job = {
      metadata: { name: "j" },
      spec: { template: { spec: { restartPolicy: "Always", containers: [{ name: "a", image: "b" }] } } },
    };
    expect(messageOf(validateObject("jobs", job), "spec.template.spec.restartPolicy")).toBe(
      'Required value: valid values: "OnFailure", "Never"',
    );
    const cron = {
      metadata: { name: "c" },
      spec: {
        schedule: "* * *",
        jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "a", image: "b" }] } } } },
      },
    };
    expect(messageOf(validateObject("cronjobs", cron), "spec.schedule")).toBe(
      'Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]',
    );
  });

  it("parses cron schedules as the CronJob controller's parser does", () => {
    for (const ok of ["*/5 * * * *", "0 0 1 jan mon-fri", "@hourly", "@every 1h", "0,30 9-17 * * 1-5"])
      expect(validateCronSchedule(ok)).toBeUndefined();
    expect(validateCronSchedule("60 * * * *")).toBe("end of range (60) above maximum (59): 60");
    expect(validateCronSchedule("x * * * *")).toMatch(/^failed to parse int from x/);
    expect(validateCronSchedule("@sometimes")).toBe("unrecognized descriptor: @sometimes");
    expect(validateCronSchedule("TZ=UTC 0 * * * *")).toMatch(/use timeZone field instead/);
  });
});
