// Plain JavaScript on purpose: it must run (and explain) on the older Node that cannot run our .ts files.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  console.error(`
citydaily needs Node.js 24 or newer; this is ${process.version}.
Get Node 24 from the npm registry without touching the system Node:

  npm install --prefix ~/.local/node24 node@24 && echo 'export PATH="$HOME/.local/node24/node_modules/node/bin:$PATH"' >> ~/.$(basename "$SHELL")rc && export PATH="$HOME/.local/node24/node_modules/node/bin:$PATH"

(It also adds the PATH line to your shell's startup file, so every new terminal finds Node 24.)
`);
  process.exit(1);
}
