// three.js's FBXLoader as an FBX oracle (docs/fbx.md "Writing FBX"): `node fbx.mjs FILE [REQUESTS]`
// loads FILE with FBXLoader under node, poses the scene for each request and prints one JSON object:
//   {unitScaleFactor, meshes:[{name, skinned, vertexCount, frames:[{animation, time, positions}]}],
//    animations:[{name, duration, tracks}], bones}
// bones counts distinct bone names: FBXLoader makes a second Bone object for a LimbNode that the
// skins of several meshes use (one per skeleton), under the same name.
// REQUESTS is a JSON array (inline, or "-" for stdin) of {"animation": index | name | null,
// "time": seconds}; animation null (the default) is the scene as loaded (the bind pose).
// Positions are world space in the file's units (FBXLoader leaves UnitScaleFactor to the caller, in
// userData): matrixWorld · getVertexPosition(i), morphs and CPU skinning applied, i.e. what three.js
// draws. Textures are never fetched: every image resolves to an empty THREE.Texture (node has no
// DOM to decode one). Exits non-zero with a message on stderr only when the script itself fails.
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { FBXLoader } from 'three/examples/jsm/loaders/FBXLoader.js';

// A texture loader that loads nothing: FBXLoader asks the LoadingManager for a handler by the
// image's name before it falls back to TextureLoader (which needs a DOM); this one matches every name.
const stubTextures = {
    path: undefined,
    setPath(p) { this.path = p; return this; },
    load() { return new THREE.Texture(); },
};

// FBXLoader turns embedded image bytes (Video/Content) into blob: URLs, which node supports, and
// warns on the console for Z-up files and placeholders: warnings go to stderr, never to stdout.
console.warn = (...args) => process.stderr.write(args.join(' ') + '\n');

function loadFbx(file) {
    const bytes = fs.readFileSync(file);
    const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const manager = new THREE.LoadingManager();
    manager.addHandler(/./, stubTextures);
    const loader = new FBXLoader(manager);
    return loader.parse(data, path.dirname(path.resolve(file)) + '/');
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
// t = duration holds the last key instead of wrapping to the first.
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

function main() {
    const file = process.argv[2];
    if (!file || process.argv.length > 4) throw new Error('usage: node fbx.mjs FILE [REQUESTS_JSON | -]');
    const requests = readRequests(process.argv[3]);
    const scene = loadFbx(file);
    const animations = scene.animations ?? [];

    const meshes = [];
    const bones = new Set();
    scene.traverse((object) => {
        if (object.isBone) bones.add(object.name);
        if (!object.isMesh) return;
        meshes.push({
            object,
            out: {
                name: object.name,
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
        const clip = findClip(animations, request.animation);
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
        unitScaleFactor: scene.userData.unitScaleFactor ?? 1,
        meshes: meshes.map((m) => m.out),
        animations: animations.map((a) => ({ name: a.name, duration: a.duration, tracks: a.tracks.length })),
        bones: bones.size,
    }));
}

try {
    main();
} catch (e) {
    console.error(`fbx.mjs: ${e && e.stack ? e.stack : e}`);
    process.exit(2);
}
