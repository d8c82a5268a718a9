#!/usr/bin/env node
// Process entry of the controller (bin shiplog-controller): the process as src/process.ts runs it.
import { runControllerProcess } from "./process.js";

runControllerProcess();
