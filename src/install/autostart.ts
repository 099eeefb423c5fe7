/**
 * `--autostart`: a per-user service that keeps `vantage serve` running — a
 * systemd user unit on Linux, a launchd agent on macOS. Vantage writes the
 * file; enabling it is one command the user runs, printed by the CLI.
 * Without it, the SessionStart hook starts `serve` when it is not running.
 *
 * @module
 */
import { join } from "node:path";
import type { InstallEnvironment } from "./environment.ts";
import { vantageCommand } from "./launch_command.ts";
import { type ManagedFile, ownedFile } from "./managed_file.ts";

/** The launchd label of the agent on macOS. */
export const LAUNCHD_LABEL = "dev.vantage.serve";

/** A service definition and the commands that turn it on and off. */
export interface AutostartUnit {
  /** Where the file goes. */
  path: string;
  /** The file's content. */
  content: string;
  /** Commands that enable and start it. */
  enable: string[];
  /** Commands that stop and disable it (run before removing the file). */
  disable: string[];
}

/**
 * The service for this platform, or undefined where Vantage has none
 * (Windows and others).
 *
 * @example
 * ```ts
 * import { currentEnvironment } from "./environment.ts";
 * import { autostartUnit } from "./autostart.ts";
 * const unit = autostartUnit({ ...currentEnvironment(), platform: "linux" });
 * unit?.path.endsWith("systemd/user/vantage.service"); // true
 * ```
 */
export function autostartUnit(environment: InstallEnvironment): AutostartUnit | undefined {
  if (environment.platform === "linux") return systemdUnit(environment);
  if (environment.platform === "darwin") return launchdAgent(environment);
  return undefined;
}

/** The service file as a managed file, or undefined where there is none. */
export function autostartFile(environment: InstallEnvironment): ManagedFile | undefined {
  const unit = autostartUnit(environment);
  if (unit === undefined) return undefined;
  return ownedFile(
    unit.path,
    () => unit.content,
    "autostart service",
    (text) => text.includes("vantage install --autostart"),
  );
}

/** Where the service file would be on this platform (for uninstall and doctor). */
export function autostartPath(environment: InstallEnvironment): string | undefined {
  if (environment.platform === "linux") {
    return join(environment.userHome, ".config", "systemd", "user", "vantage.service");
  }
  if (environment.platform === "darwin") {
    return join(environment.userHome, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
  }
  return undefined;
}

function systemdUnit(environment: InstallEnvironment): AutostartUnit {
  const launch = vantageCommand(environment, "serve", ["serve"]);
  const exec = [launch.command, ...launch.args].map(systemdWord).join(" ");
  const env = Object.entries(launch.env).map(([name, value]) =>
    `Environment=${systemdWord(`${name}=${value}`)}\n`
  ).join("");
  return {
    path: autostartPath(environment) as string,
    content: `# Written by \`vantage install --autostart\`; removed by \`vantage uninstall\`.
[Unit]
Description=Vantage: memory and awareness for coding agents
After=network.target

[Service]
Type=simple
ExecStart=${exec}
${env}Restart=on-failure
RestartSec=5

[Install]
WantedBy=default.target
`,
    enable: ["systemctl --user daemon-reload", "systemctl --user enable --now vantage"],
    disable: ["systemctl --user disable --now vantage"],
  };
}

function launchdAgent(environment: InstallEnvironment): AutostartUnit {
  const launch = vantageCommand(environment, "serve", ["serve"]);
  const path = autostartPath(environment) as string;
  const program = [launch.command, ...launch.args]
    .map((arg) => `    <string>${xml(arg)}</string>\n`).join("");
  const env = Object.entries(launch.env)
    .map(([name, value]) => `    <key>${xml(name)}</key>\n    <string>${xml(value)}</string>\n`)
    .join("");
  const log = xml(join(environment.dataHome, "serve.log"));
  return {
    path,
    content: `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`vantage install --autostart\`; removed by \`vantage uninstall\`. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${program}  </array>
  <key>EnvironmentVariables</key>
  <dict>
${env}  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <true/>
  <key>StandardErrorPath</key>
  <string>${log}</string>
</dict>
</plist>
`,
    enable: [`launchctl bootstrap gui/$(id -u) ${path}`],
    disable: [`launchctl bootout gui/$(id -u)/${LAUNCHD_LABEL}`],
  };
}

/** One word of an ExecStart= line: quoted when needed; `%` and `$` escaped for systemd. */
function systemdWord(word: string): string {
  const plain = /^[A-Za-z0-9_.,:/=@+*-]+$/.test(word)
    ? word
    : `"${word.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  return plain.replaceAll("%", "%%").replaceAll("$", "$$$$");
}

function xml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}
