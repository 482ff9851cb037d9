"""The Starchart regression tree, shaped like scikit-learn's ``sklearn/tree/``.

- :class:`StarchartTree`: the estimator of Jia, Shaw & Martonosi (PACT 2013, Fig. 3);
- :func:`prune`, :func:`fit_pruned`, :func:`cross_validated_error`: cost-complexity pruning
  sized by cross-validation (rpart semantics);
- :class:`StarchartForest`: bagged trees, for accuracy and uncertainty;
- :func:`tree_to_text`, :func:`tree_to_dot`, :func:`dot_to_svg`: exports.

The private modules hold the parts: ``_tree`` (estimator), ``_growth`` (the compiled grower),
``_pruning``, ``_forest``, ``_text`` and ``_graphviz``.

>>> from starchart.tree import StarchartTree
>>> StarchartTree(min_samples_split=2).fit([[1], [2], [3], [4]], [1.0, 1.0, 5.0, 5.0]).predict([[1], [4]]).tolist()
[1.0, 5.0]
"""

from starchart.tree._forest import StarchartForest
from starchart.tree._graphviz import dot_to_svg, tree_to_dot
from starchart.tree._pruning import (
                                     PruningPath,
                                     choose_cp,
                                     cp_table,
                                     cross_validated_error,
                                     describe_error,
                                     fit_pruned,
                                     fit_stated_tree,
                                     prune,
                                     pruning_path,
)
from starchart.tree._text import best_leaf_line, expanded_nodes, split_labels, tree_to_text, with_ancestors
from starchart.tree._tree import (
                                     StarchartTree,
                                     Subspace,
                                     TreeNode,
                                     best_leaf_per_group,
                                     check_tree_options,
                                     format_value,
)

__all__ = ["PruningPath", "StarchartForest", "StarchartTree", "Subspace", "TreeNode", "best_leaf_line",
           "check_tree_options", "choose_cp", "cp_table", "cross_validated_error", "describe_error", "dot_to_svg",
           "best_leaf_per_group", "expanded_nodes",
           "fit_pruned", "fit_stated_tree", "format_value", "prune", "pruning_path", "split_labels", "tree_to_dot",
           "tree_to_text", "with_ancestors"]
