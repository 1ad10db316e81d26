"""Navigation meshes: bake from any ray source, MovingAI grids or 2-D polygons; query paths."""
