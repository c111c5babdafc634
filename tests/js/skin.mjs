// three.js as a CPU skinning oracle (docs/gltf.md §6.2): `node skin.mjs FILE [REQUESTS]` loads a
// .glb or .gltf (external buffers included; meshopt-compressed ones decoded) with GLTFLoader under node, poses the scene for each
// request and prints one JSON object with every mesh's world-space vertex positions:
//   {meshes:[{name, meshIndex, primitive, node, skinned, vertexCount,
//             frames:[{animation, time, positions:[x,y,z,...]}]}],
//    animations:[{name, duration, tracks}]}
// REQUESTS is a JSON array (inline, or "-" for stdin) of {"animation": index | name | null,
// "time": seconds}; animation null (the default when REQUESTS is absent) is the bind pose.
// World position = matrixWorld · getVertexPosition(i), i.e. what three.js draws (morphs and skinning
// included). Exits non-zero with a message on stderr only when the script itself fails.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';

// node's fetch refuses file:// URLs, which is where GLTFLoader's FileLoader asks for external
// buffers (resourcePath below is a file:// URL). Serve those from the filesystem; pass the rest on.
const nodeFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input.url;
    if (!url.startsWith('file:')) return nodeFetch(input, init);
    const bytes = await fs.promises.readFile(fileURLToPath(url));
    return new Response(bytes, { status: 200, statusText: 'OK' });
};

// FileLoader reports download progress with the DOM's ProgressEvent, which node lacks.
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
    constructor(type, init = {}) {
        super(type);
        Object.assign(this, { lengthComputable: false, loaded: 0, total: 0, ...init });
    }
};

// node has no DOM or ImageBitmap: every texture resolves to an empty THREE.Texture, unfetched.
function stubTextures() {
    return { name: 'RIGPORT_stub_textures', loadTexture: () => Promise.resolve(new THREE.Texture()) };
}

function loadGltf(file) {
    const bytes = fs.readFileSync(file);
    const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const resourcePath = pathToFileURL(path.dirname(path.resolve(file))).href + '/';
    const loader = new GLTFLoader();
    loader.register(stubTextures);
    // EXT_meshopt_compression (rigport's --compress output, docs/gltf.md "Compressed output"):
    // three.js's own WebAssembly decoder, as a web page would set it.
    loader.setMeshoptDecoder(MeshoptDecoder);
    return new Promise((resolve, reject) => loader.parse(data, resourcePath, resolve, reject));
}

function readRequests(arg) {
    if (arg === undefined) return [{ animation: null, time: 0 }];
    const text = arg === '-' ? fs.readFileSync(0, 'utf8') : arg;
    const requests = JSON.parse(text);
    if (!Array.isArray(requests)) throw new Error('REQUESTS must be a JSON array');
    return requests;
}

function findClip(animations, wanted) {
    if (wanted === null || wanted === undefined) return null;
    const clip = typeof wanted === 'number' ? animations[wanted] : animations.find((a) => a.name === wanted);
    if (!clip) throw new Error(`no animation ${JSON.stringify(wanted)} (the file has ${animations.length})`);
    return clip;
}

// Poses the scene at (clip, time): a fresh mixer per request, LoopOnce + clampWhenFinished so that
// t = duration holds the last key instead of wrapping to the first (the LoopRepeat trap, §6.2).
function pose(scene, clip, time) {
    if (clip) {
        const mixer = new THREE.AnimationMixer(scene);
        const action = mixer.clipAction(clip);
        action.setLoop(THREE.LoopOnce, 1);
        action.clampWhenFinished = true;
        action.play();
        mixer.setTime(time);
        scene.updateMatrixWorld(true);
        return () => { mixer.stopAllAction(); mixer.uncacheRoot(scene); };
    }
    scene.updateMatrixWorld(true);
    return () => {};
}

async function main() {
    const file = process.argv[2];
    if (!file || process.argv.length > 4) throw new Error('usage: node skin.mjs FILE [REQUESTS_JSON | -]');
    const requests = readRequests(process.argv[3]);
    const gltf = await loadGltf(file);
    const scene = gltf.scene;
    const associations = gltf.parser.associations;

    const meshes = [];
    scene.traverse((object) => {
        if (!object.isMesh) return;
        const mapping = associations.get(object) ?? {};
        const parentMapping = object.parent ? associations.get(object.parent) ?? {} : {};
        meshes.push({
            object,
            out: {
                name: object.name,
                meshIndex: mapping.meshes ?? -1,
                primitive: mapping.primitives ?? -1,
                node: mapping.nodes ?? parentMapping.nodes ?? -1,
                skinned: object.isSkinnedMesh === true,
                vertexCount: object.geometry.attributes.position.count,
                frames: [],
            },
        });
    });

    // Resting state to return to between requests: a mixer leaves its last values behind.
    const rest = [];
    scene.traverse((o) => rest.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone(),
                                     o.morphTargetInfluences ? [...o.morphTargetInfluences] : null]));

    const v = new THREE.Vector3();
    for (const request of requests) {
        for (const [o, p, q, s, w] of rest) {
            o.position.copy(p); o.quaternion.copy(q); o.scale.copy(s);
            if (w) o.morphTargetInfluences.splice(0, w.length, ...w);
        }
        const clip = findClip(gltf.animations, request.animation);
        const time = Number(request.time ?? 0);
        const release = pose(scene, clip, time);
        for (const { object, out } of meshes) {
            const n = out.vertexCount;
            const positions = new Array(3 * n);
            for (let i = 0; i < n; ++i) {
                object.getVertexPosition(i, v);
                v.applyMatrix4(object.matrixWorld);
                positions[3 * i] = v.x; positions[3 * i + 1] = v.y; positions[3 * i + 2] = v.z;
            }
            out.frames.push({ animation: clip ? clip.name : null, time, positions });
        }
        release();
    }

    console.log(JSON.stringify({
        meshes: meshes.map((m) => m.out),
        animations: gltf.animations.map((a) => ({ name: a.name, duration: a.duration, tracks: a.tracks.length })),
    }));
}

main().catch((e) => {
    console.error(`skin.mjs: ${e && e.stack ? e.stack : e}`);
    process.exit(2);
});
