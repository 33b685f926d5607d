#version 330
// Panel edges on walls, grid lines on the floor, then distance fog towards a dark colour so
// depth reads at a glance. Lighting comes per vertex (see maze.vert), fog from the view depth
// per fragment (floor and ceiling are one quad each, too large to interpolate fog across).
const int WALL = 0;
const int FLOOR = 1;

uniform vec3 u_fog_colour;
uniform float u_fog_density;

in vec3 v_colour;
in vec2 v_uv;
in float v_depth;
in vec2 v_floor;
flat in float v_material;

out vec4 f_color;

// 0 within `width` of either end of [0, 1], 1 inside; a fixed soft edge instead of fwidth,
// which is costly on llvmpipe.
float inside(float t, float width) {
    return smoothstep(width, width + 0.015, t) * smoothstep(width, width + 0.015, 1.0 - t);
}

void main() {
    int material = int(v_material + 0.5);
    vec3 colour = v_colour;
    if (material == WALL) {
        colour *= mix(0.55, 1.0, inside(v_uv.x, 0.02));               // segment ends
        colour *= v_uv.y < 0.065 ? 0.6 : 1.0;                          // baseboard
    } else if (material == FLOOR) {
        vec2 cell = floor(v_floor);
        colour *= mod(cell.x + cell.y, 2.0) > 0.5 ? 0.86 : 1.0;
    }
    float fog = 1.0 - exp(-u_fog_density * v_depth);
    f_color = vec4(mix(colour, u_fog_colour, fog), 1.0);
}
