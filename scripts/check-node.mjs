// Plain JavaScript on purpose: it must run (and explain) on the older Node that cannot run our .ts files.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  console.error(`
citydaily needs Node.js 24 or newer; this is ${process.version}.
Get Node 24 from the npm registry without touching the system Node:

  npm install --prefix ~/.local/node24 node@24 && export PATH=~/.local/node24/node_modules/node/bin:$PATH
`);
  process.exit(1);
}
