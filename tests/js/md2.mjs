// three.js's MD2Loader as an MD2 oracle (docs/md2.md "Testing"): `node md2.mjs FILE FRAMES` loads
// FILE with MD2Loader under node and prints one JSON object:
//   {frames:[{frame, name, positions:[x,y,z,...]}], corners, animations:[{name, duration, tracks}]}
// FRAMES is a JSON array of frame numbers. Positions are three.js's morph target of that frame, one
// per triangle corner in file order, turned back from the loader's (x, z, y) to the file's axes,
// so they compare with the MD2's own Quake Z-up numbers. Exits non-zero only when the script fails.
import fs from 'node:fs';
import { MD2Loader } from 'three/examples/jsm/loaders/MD2Loader.js';

const [file, framesArg] = process.argv.slice(2);
if (!file) {
    console.error('usage: node md2.mjs FILE [FRAMES]');
    process.exit(2);
}
const wanted = framesArg ? JSON.parse(framesArg) : [0];
const bytes = fs.readFileSync(file);
const geometry = new MD2Loader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
if (!geometry) {
    console.error('MD2Loader could not parse ' + file);
    process.exit(1);
}
const targets = geometry.morphAttributes.position;
const frames = [];
for (const f of wanted) {
    const attribute = targets[f];
    if (!attribute) {
        console.error(`frame ${f}: the model has ${targets.length} frames`);
        process.exit(1);
    }
    const a = attribute.array;
    const positions = new Array(a.length);
    for (let i = 0; i < a.length; i += 3) {
        positions[i] = a[i];
        positions[i + 1] = a[i + 2];  // the loader stored (x, z, y)
        positions[i + 2] = a[i + 1];
    }
    frames.push({ frame: f, name: attribute.name, positions });
}
const animations = geometry.animations.map((c) => ({ name: c.name, duration: c.duration, tracks: c.tracks.length }));
process.stdout.write(JSON.stringify({ frames, corners: geometry.attributes.position.count, animations }));
