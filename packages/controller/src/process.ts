// The controller as a process: configuration, logging, the controller, the health server, and signals. main.ts runs
// it; shiplog's own tests run it with instrumentation (test/crash-entry.ts), never set in production.
import { redactSecrets } from "@shiplog/client";
import { BoundedFileError } from "@shiplog/client/internal";
import { pino } from "pino";
import { ConfigError, loadConfig, redactedConfig, usage } from "./config/config.js";
import { startHealthServer, type HealthServer } from "./observability/health-server.js";
import { logDestination } from "./observability/log-format.js";
import { StartupError, listenError } from "./config/startup-error.js";
import { CONTROLLER_VERSION } from "./version.js";
import type { ControllerOptions } from "./build-controller.js";

/** Options of the process's controller besides what its settings make (instrumentation for tests). */
export type ProcessOptions = Pick<ControllerOptions, "probes" | "stateLimits">;

async function main(extra: ProcessOptions): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  // As the shiplog command line prints it: the version alone.
  if (argv.includes("--version") || argv.includes("-V")) {
    process.stdout.write(`${CONTROLLER_VERSION}\n`);
    return;
  }
  const config = loadConfig(argv, process.env);
  // Loaded once the settings are known to be good: a bad one is reported without loading the Kubernetes client (~1 s).
  const { loadKubeConfig } = await import("./kube/config-loader.js");
  const kubeConfig = loadKubeConfig({ paths: config.kubeconfig });
  const { buildController } = await import("./build-controller.js");
  const logger = pino(
    {
      level: config.logLevel,
      base: { component: "shiplog-controller" },
      redact: { paths: ["token", "*.token", "config.token", "headers.authorization", "*.headers.authorization"], censor: "[redacted]" },
    },
    logDestination(config.logFormat),
  );
  logger.info({ config: redactedConfig(config) }, "configuration");

  const controller = buildController(config, { kubeConfig, logger, ...extra });
  let health: HealthServer | undefined;
  if (config.httpPort !== "off") {
    const { httpHost: host, httpPort: port } = config;
    health = await startHealthServer(controller, { host, port, staleAfterMs: 30_000 }).catch((error: unknown) => {
      throw listenError(error, host, port);
    });
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

/** Runs the controller process: exits 2 on an operator's mistake (one line each), 1 on a defect, 0 once stopped. */
export function runControllerProcess(extra: ProcessOptions = {}): void {
  main(extra).catch(exit);
}

function exit(error: unknown): never {
  // The operator's mistakes: one line per problem naming the setting and the rule, exit code 2, no stack.
  // A file a setting names that is not a bounded regular file is such a mistake too, wherever it was found.
  if (error instanceof ConfigError || error instanceof StartupError || error instanceof BoundedFileError) {
    process.stderr.write(
      `${error.message
        .split("\n")
        .map((line) => `shiplog-controller: ${line}`)
        .join("\n")}\n`,
    );
    process.exit(2);
  }
  // Anything else is a defect of the controller: its stack helps whoever fixes it, less the token if it quotes it.
  const text = redactSecrets((error as Error)?.stack ?? String(error), [process.env.SHIPLOG_TOKEN?.trim()]);
  process.stderr.write(`shiplog-controller: ${text}\n`);
  process.exit(1);
}
