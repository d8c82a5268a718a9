#!/usr/bin/env node
// Process entry of the controller: configuration, logging, the controller, the health server, and signals.
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { ConfigError, loadConfig, redactedConfig, usage } from "./config.js";
import { Controller } from "./controller.js";
import { startHealthServer, type HealthServer } from "./health-server.js";

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  let config;
  try {
    config = loadConfig(argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`shiplog-controller: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = pino({
    level: config.logLevel,
    base: { component: "shiplog-controller" },
    redact: { paths: ["token", "*.token", "config.token", "headers.authorization", "*.headers.authorization"], censor: "[redacted]" },
  });
  logger.info({ config: redactedConfig(config) }, "configuration");

  const kubeConfig = new KubeConfig();
  if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
  else kubeConfig.loadFromDefault();

  const controller = new Controller({ config, kubeConfig, logger });
  let health: HealthServer | undefined;
  if (config.httpPort !== "off") {
    health = await startHealthServer(controller, { host: config.httpHost, port: config.httpPort, staleAfterMs: Math.max(30_000, config.flushIntervalMs * 5) });
    logger.info({ url: health.url }, "health and metrics server listening");
  }

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    controller
      .stop({ flush: true, timeoutMs: config.shutdownTimeoutMs })
      .then(() => health?.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, "stop failed");
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  await controller.start();
}

main().catch((error: unknown) => {
  process.stderr.write(`shiplog-controller: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
