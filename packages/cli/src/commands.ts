import type { Command } from "./command.js";
import { permissionsCommand } from "./commands/permissions.js";

/** Every `shiplog` command, in the order `--help` lists them. Add a command by adding its module here. */
export const COMMANDS: readonly Command[] = [permissionsCommand];
