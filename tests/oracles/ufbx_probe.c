/* The ufbx oracle for rigport's FBX reader (docs/fbx.md, "Checked against ufbx"): loads an FBX
 * file with ufbx in metres, Y up, right-handed, and prints as JSON the file's unit, each
 * animation stack's window, and the world-space positions of every mesh's control points at rest
 * and at two times inside each stack: 1/3 and 2/3 of its window, rounded to the nearest frame of
 * the file's frame rate (settings.frames_per_second) counted from the window's start.
 *
 *   ufbx_probe FILE.fbx        exit 0 with the JSON on stdout; 2 when ufbx cannot load the file
 *
 * Rest: the bind pose. A skinned control point is placed by its clusters' bind matrices
 * (bind_to_world * geometry_to_bone, blended linearly by its weights, normalized); a point no
 * cluster moves, and a mesh without a skin, by its node's geometry_to_world. Blend shapes are
 * off at rest (the base mesh).
 * Posed: ufbx_evaluate_scene(stack, time) with evaluate_skinning, i.e. ufbx's own evaluation:
 * blend shapes at their evaluated weights, then ufbx's skinning (linear, or dual-quaternion where
 * the file's skin asks for it; "skinning" per mesh says which).
 * A mesh instanced by several nodes gives its points once per instance (a skinned mesh once: its
 * skin places it in the world). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufbx.h"

static void print_string(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') printf("\\%c", c);
		else if (c < 0x20) printf("\\u%04x", c);
		else putchar(c);
	}
	putchar('"');
}

static int first_point;

static void print_point(ufbx_vec3 p)
{
	printf("%s[%.9g,%.9g,%.9g]", first_point ? "" : ",", p.x, p.y, p.z);
	first_point = 0;
}

/* The bind-pose matrix of one control point of a skinned mesh; 0 when no cluster moves it. */
static int bind_matrix(const ufbx_skin_deformer *skin, size_t vertex, ufbx_matrix *out)
{
	if (vertex >= skin->vertices.count) return 0;
	ufbx_skin_vertex sv = skin->vertices.data[vertex];
	ufbx_matrix sum;
	memset(&sum, 0, sizeof(sum));
	ufbx_real total = 0;
	for (uint32_t i = 0; i < sv.num_weights; i++) {
		ufbx_skin_weight w = skin->weights.data[sv.weight_begin + i];
		const ufbx_skin_cluster *cluster = skin->clusters.data[w.cluster_index];
		if (!cluster->bone_node) continue;
		ufbx_matrix m = ufbx_matrix_mul(&cluster->bind_to_world, &cluster->geometry_to_bone);
		for (int c = 0; c < 4; c++)
			for (int r = 0; r < 3; r++) sum.cols[c].v[r] += m.cols[c].v[r] * w.weight;
		total += w.weight;
	}
	if (!(total > 0)) return 0;
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 3; r++) sum.cols[c].v[r] /= total;
	*out = sum;
	return 1;
}

static void print_rest(const ufbx_scene *scene)
{
	first_point = 1;
	printf("[");
	for (size_t m = 0; m < scene->meshes.count; m++) {
		const ufbx_mesh *mesh = scene->meshes.data[m];
		if (mesh->instances.count == 0) continue;
		if (mesh->skin_deformers.count > 0) {
			const ufbx_skin_deformer *skin = mesh->skin_deformers.data[0];
			const ufbx_matrix *fallback = &mesh->instances.data[0]->geometry_to_world;
			for (size_t v = 0; v < mesh->num_vertices; v++) {
				ufbx_matrix mat;
				if (!bind_matrix(skin, v, &mat)) mat = *fallback;
				print_point(ufbx_transform_position(&mat, mesh->vertices.data[v]));
			}
			continue;
		}
		for (size_t n = 0; n < mesh->instances.count; n++) {
			const ufbx_matrix *to_world = &mesh->instances.data[n]->geometry_to_world;
			for (size_t v = 0; v < mesh->num_vertices; v++)
				print_point(ufbx_transform_position(to_world, mesh->vertices.data[v]));
		}
	}
	printf("]");
}

static void print_posed(const ufbx_scene *posed)
{
	first_point = 1;
	printf("[");
	for (size_t m = 0; m < posed->meshes.count; m++) {
		const ufbx_mesh *mesh = posed->meshes.data[m];
		if (mesh->instances.count == 0) continue;
		const ufbx_vec3 *points = mesh->skinned_position.values.data;
		if (!mesh->skinned_is_local) {
			for (size_t v = 0; v < mesh->num_vertices; v++) print_point(points[v]);
			continue;
		}
		for (size_t n = 0; n < mesh->instances.count; n++) {
			const ufbx_matrix *to_world = &mesh->instances.data[n]->geometry_to_world;
			for (size_t v = 0; v < mesh->num_vertices; v++) print_point(ufbx_transform_position(to_world, points[v]));
		}
	}
	printf("]");
}

static const char *skinning_name(const ufbx_mesh *mesh)
{
	if (mesh->skin_deformers.count == 0) return "none";
	switch (mesh->skin_deformers.data[0]->skinning_method) {
	case UFBX_SKINNING_METHOD_LINEAR: return "linear";
	case UFBX_SKINNING_METHOD_RIGID: return "rigid";
	case UFBX_SKINNING_METHOD_DUAL_QUATERNION: return "dual-quaternion";
	case UFBX_SKINNING_METHOD_BLENDED_DQ_LINEAR: return "blended";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ufbx_probe FILE.fbx\n");
		return 1;
	}
	ufbx_load_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.target_axes = ufbx_axes_right_handed_y_up;
	opts.target_unit_meters = 1.0;
	/* Scale the geometry as well as the transforms: every matrix and point comes out in metres. */
	opts.space_conversion = UFBX_SPACE_CONVERSION_MODIFY_GEOMETRY;
	ufbx_error error;
	ufbx_scene *scene = ufbx_load_file(argv[1], &opts, &error);
	if (!scene) {
		char text[1024];
		ufbx_format_error(text, sizeof(text), &error);
		fprintf(stderr, "ufbx_probe: %s: %s\n", argv[1], text);
		return 2;
	}

	/* settings.axes are the file's own axes (right, up, front) whatever target_axes asks. */
	static const char *const axis_names[] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
	const ufbx_coordinate_axis axes[3] = {scene->settings.axes.right, scene->settings.axes.up, scene->settings.axes.front};
	printf("{\"unit_meters\":%.9g,\"original_unit_meters\":%.9g,\"axes\":[",
	       scene->settings.unit_meters, scene->settings.original_unit_meters);
	for (int i = 0; i < 3; i++) printf("%s\"%s\"", i ? "," : "", (unsigned)axes[i] < 6 ? axis_names[axes[i]] : "unknown");
	printf("],\"frames_per_second\":%.17g,", scene->settings.frames_per_second);
	printf("\"meshes\":[");
	for (size_t m = 0; m < scene->meshes.count; m++) {
		const ufbx_mesh *mesh = scene->meshes.data[m];
		printf("%s{\"name\":", m ? "," : "");
		print_string(mesh->name.data, mesh->name.length);
		printf(",\"vertices\":%zu,\"instances\":%zu,\"skinning\":\"%s\",\"blend_channels\":%zu}", mesh->num_vertices,
		       mesh->instances.count, skinning_name(mesh),
		       mesh->blend_deformers.count ? mesh->blend_deformers.data[0]->channels.count : (size_t)0);
	}
	printf("],\"stacks\":[");
	for (size_t s = 0; s < scene->anim_stacks.count; s++) {
		const ufbx_anim_stack *stack = scene->anim_stacks.data[s];
		printf("%s{\"name\":", s ? "," : "");
		print_string(stack->name.data, stack->name.length);
		printf(",\"time_begin\":%.17g,\"time_end\":%.17g}", stack->time_begin, stack->time_end);
	}
	printf("],\"poses\":[{\"stack\":-1,\"time\":0,\"positions\":");
	print_rest(scene);
	printf("}");

	ufbx_evaluate_opts eval;
	memset(&eval, 0, sizeof(eval));
	eval.evaluate_skinning = true;
	const double fps = scene->settings.frames_per_second;
	for (size_t s = 0; s < scene->anim_stacks.count; s++) {
		const ufbx_anim_stack *stack = scene->anim_stacks.data[s];
		for (int k = 1; k <= 2; k++) {
			double t = stack->time_begin + (stack->time_end - stack->time_begin) * k / 3.0;
			if (fps > 0) t = stack->time_begin + floor((t - stack->time_begin) * fps + 0.5) / fps;
			ufbx_scene *posed = ufbx_evaluate_scene(scene, stack->anim, t, &eval, &error);
			if (!posed) {
				char text[1024];
				ufbx_format_error(text, sizeof(text), &error);
				fprintf(stderr, "ufbx_probe: %s: evaluating stack %zu at %g s: %s\n", argv[1], s, t, text);
				ufbx_free_scene(scene);
				return 2;
			}
			printf(",{\"stack\":%zu,\"time\":%.17g,\"positions\":", s, t);
			print_posed(posed);
			printf("}");
			ufbx_free_scene(posed);
		}
	}
	printf("]}\n");
	ufbx_free_scene(scene);
	return 0;
}
