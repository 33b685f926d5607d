#version 330
// Egocentric maze views. Per vertex: world geometry of one maze (x = column, z = row, y = up,
// walls 1 unit high). Per instance (one draw command per view): the camera and the frame tile.
in vec3 in_position;
in vec3 in_normal;
in vec3 in_colour;
in vec2 in_uv;       // along / up the wall segment, for panel edges
in float in_material;

in vec4 in_eye;      // x, y (eye height), z, yaw (radians, 0 = north = -z, clockwise)
in float in_tile;

uniform float u_focal;        // 1 / tan(fov_x / 2)
uniform float u_aspect;       // width / height
uniform float u_near;
uniform float u_far;
uniform vec2 u_frame_size;
uniform vec2 u_target_size;
uniform int u_columns;

out vec3 v_colour;  // lit colour before fog
out vec2 v_uv;
out float v_depth;   // view-space depth, for fog per fragment
out vec2 v_floor;    // world x, z, for the floor's checker
flat out float v_material;

const int WALL = 0;
const int GOAL = 3;

void main() {
    vec3 eye = in_eye.xyz;
    int material = int(in_material + 0.5);
    vec3 to_eye = eye - in_position;
    // Walls are drawn once, on the side facing into their cell: drop faces seen from behind.
    bool back_facing = material == WALL && dot(in_normal, to_eye) <= 0.0;
    float yaw = in_eye.w;
    vec3 forward = vec3(sin(yaw), 0.0, -cos(yaw));
    vec3 right = vec3(cos(yaw), 0.0, sin(yaw));
    vec3 d = in_position - eye;
    vec3 view = vec3(dot(d, right), d.y, dot(d, forward));
    vec4 clip = vec4(view.x * u_focal, -view.y * u_focal * u_aspect,
                     (view.z * (u_far + u_near) - 2.0 * u_far * u_near) / (u_far - u_near), view.z);
    // Clip to the view's own frame before moving it into its tile of the shared framebuffer.
    gl_ClipDistance[0] = clip.w + clip.x;
    gl_ClipDistance[1] = clip.w - clip.x;
    gl_ClipDistance[2] = clip.w + clip.y;
    gl_ClipDistance[3] = clip.w - clip.y;
    int tile = int(in_tile + 0.5);
    vec2 origin = vec2(tile % u_columns, tile / u_columns) * u_frame_size;
    vec2 scale = u_frame_size / u_target_size;
    vec2 centre = (origin + 0.5 * u_frame_size) / u_target_size * 2.0 - 1.0;
    clip.xy = clip.xy * scale + centre * clip.w;
    gl_Position = back_facing ? vec4(2.0, 2.0, 2.0, 1.0) : clip;
    // Lighting per vertex keeps the fragment shader cheap on CPU rasterisers; wall segments are
    // one cell long, so the interpolation error stays small.
    float distance = max(length(to_eye), 1e-4);
    float facing = abs(dot(in_normal, to_eye / distance));
    float light = material == WALL ? 0.45 + 0.55 * facing : (material == GOAL ? 0.7 + 0.3 * facing : 1.0);
    v_colour = in_colour * light;
    v_depth = view.z;
    v_floor = in_position.xz;
    v_uv = in_uv;
    v_material = in_material;
}
