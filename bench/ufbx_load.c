/* The ufbx peer of `rigport info FILE` in bench/compare.py: one whole-process load of an FBX file
 * with ufbx's default options (no unit or axis conversion, no skinning evaluated), then free.
 * Prints the counts it read so the load cannot be mistaken for a no-op.
 *   ufbx_load FILE.fbx      exit 0, or 2 with ufbx's error when it cannot load the file */
#include <stdio.h>

#include "ufbx.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ufbx_load FILE.fbx\n");
		return 1;
	}
	ufbx_error error;
	ufbx_scene *scene = ufbx_load_file(argv[1], NULL, &error);
	if (!scene) {
		char text[1024];
		ufbx_format_error(text, sizeof(text), &error);
		fprintf(stderr, "ufbx_load: %s: %s\n", argv[1], text);
		return 2;
	}
	printf("%s: %zu meshes, %zu nodes, %zu animation stacks\n", argv[1], scene->meshes.count, scene->nodes.count,
	       scene->anim_stacks.count);
	ufbx_free_scene(scene);
	return 0;
}
