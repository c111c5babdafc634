// Writes a Draco-compressed copy of a glTF for rigport's reader tests (docs/gltf.md §7.1): glTF
// Transform's KHR_draco_mesh_compression with Google's draco3dgltf encoder, the same pair the
// `gltf-transform draco` command uses. Usage: node draco.mjs IN.glb OUT.glb [POSITION_BITS]
// Prints the quantisation used as JSON, so the test states the tolerance it allows.
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';

const [input, output, positionBits = '14'] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node draco.mjs IN.glb OUT.glb [POSITION_BITS]');
  process.exit(2);
}
const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
  'draco3d.encoder': await draco3d.createEncoderModule(),
  'draco3d.decoder': await draco3d.createDecoderModule(),
});
const document = await io.read(input);
// Quantisation of each attribute kind in bits, over each primitive's own bounding box.
const quantizationBits = { POSITION: Number(positionBits), NORMAL: 10, TEX_COORD: 12, COLOR: 8, GENERIC: 12 };
document.createExtension(KHRDracoMeshCompression).setRequired(true).setEncoderOptions({
  method: KHRDracoMeshCompression.EncoderMethod.EDGEBREAKER,
  encodeSpeed: 5,
  decodeSpeed: 5,
  quantizationBits,
  quantizationVolume: 'mesh',
});
await io.write(output, document);
console.log(JSON.stringify({ quantizationBits }));
