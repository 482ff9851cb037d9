"""Renderings of fitted trees and analyses: text, Graphviz, plots, HTML."""
