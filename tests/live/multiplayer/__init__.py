"""SceneMultiplayer against Godot 4.6: game/ (server and clients all Godot), client/ (a stock
Godot client of our servers), rpc_annotations.gd.
"""
